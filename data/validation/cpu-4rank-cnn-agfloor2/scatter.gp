# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-cnn-agfloor2/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
19.7632 20.2503 16.2629 24.5469 1
19.7996 19.6178 15.1768 24.515 1
22.053 26.095 23.2222 29.4042 0
22.0894 25.1586 22.5424 28.5997 0
63.9088 66.0465 63.9069 68.4391 0
63.9451 65.3382 63.153 67.8064 1
15.9213 17.2407 13.8025 21.1811 0
15.9508 18.1184 14.3877 22.239 1
15.9213 18.475 14.6148 22.6367 0
15.9508 17.7545 14.2162 22.8497 0
17.2679 18.0513 15.058 21.7507 1
17.2974 17.973 15.0181 21.2749 1
16.5634 18.2681 14.8194 22.776 0
16.5766 18.1547 14.6366 22.2199 0
19.1612 20.5649 18.106 23.3329 0
19.1744 21.2467 18.7254 24.4573 0
41.5431 40.1747 37.4376 42.3854 1
41.5564 40.2288 37.8101 43.0874 0
19.1261 22.7586 17.6746 27.972 0
19.1393 21.7177 16.9715 27.1048 0
19.1261 22.6657 17.4937 27.9171 0
19.1393 22.5666 16.5718 29.1867 0
19.5493 21.6021 17.1534 26.3969 0
19.5625 22.1193 16.8383 27.1471 0
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:72.8611]
set yrange [0:72.8611]
set size square
set grid
set key top left
set title 'gcu validate: cnn:c1=16,c2=32,channels=1,classes=10,hidden=128,image=28'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
