# gcu validate: predicted vs measured iteration time (median, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-cnn-idle-burst1ms/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
8.37474 11.0322 7.95715 14.1712 0
8.40033 8.94042 6.66471 13.9553 1
14.9486 16.4138 13.6186 19.1139 1
14.9742 13.7691 12.4802 17.0605 0
42.5774 42.4109 40.3162 46.7736 1
42.603 40.6139 38.8244 43.5191 0
9.10586 11.5602 9.29901 14.7716 0
9.13144 11.2019 8.62969 15.7889 1
12.3928 12.6412 10.2997 15.802 1
12.4184 12.361 10.2598 15.5686 1
26.2072 23.5879 22.797 27.7239 0
26.2328 23.0293 22.0144 26.2739 0
8.29848 15.4411 10.7831 20.2877 0
8.32407 15.7409 8.76479 20.1293 0
8.59041 14.0907 9.13974 19.9224 0
8.616 15.5422 11.2711 22.1223 0
9.708 12.86 9.14438 19.7669 0
9.73359 15.8009 8.31455 23.1872 0
7.99805 10.8573 7.88002 15.0428 0
8.02364 8.98083 7.15981 12.3603 0
8.12431 9.56499 7.64469 13.2252 0
8.1499 8.05197 7.48704 12.1778 1
8.6771 9.81883 7.74033 16.0187 1
8.70269 9.12533 7.37893 14.7753 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:50.1123]
set yrange [0:50.1123]
set size square
set grid
set key top left
set title 'gcu validate: cnn:c1=16,c2=32,channels=1,classes=10,hidden=128,image=28'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
