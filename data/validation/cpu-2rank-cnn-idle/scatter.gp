# gcu validate: predicted vs measured iteration time (median, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-cnn-idle/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
6.14268 11.9746 9.25422 16.006 0
6.15443 11.9375 8.4242 16.9915 0
12.6552 13.62 11.8945 17.1736 1
12.667 12.5563 10.6411 17.0019 1
39.693 41.4748 39.4509 48.4984 0
39.7047 41.7103 38.8438 45.0219 0
6.87516 13.5134 10.7089 18.3695 0
6.88691 12.9815 10.1998 16.8591 0
10.1314 12.5638 9.80346 16.6943 0
10.1432 13.7289 10.2743 16.4026 0
23.6503 23.6736 21.2846 27.5631 1
23.662 23.3467 22.395 27.0503 1
5.91909 15.6392 10.0297 20.9819 0
5.93084 15.7967 8.64609 20.0253 0
6.16981 15.7522 10.4437 20.0308 0
6.18155 15.8841 10.9727 20.0464 0
7.26348 14.7562 10.4287 20.6941 0
7.27523 16.0877 11.691 23.925 0
5.73473 10.5924 7.81341 15.9106 0
5.74648 10.1746 7.04805 14.6974 0
5.86274 11.2817 7.40821 16.1684 0
5.87449 11.538 9.87399 15.5827 0
6.4037 11.3126 8.96695 16.6687 0
6.41544 10.5412 8.15438 14.3596 0
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:51.9234]
set yrange [0:51.9234]
set size square
set grid
set key top left
set title 'gcu validate: cnn:c1=16,c2=32,channels=1,classes=10,hidden=128,image=28'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
