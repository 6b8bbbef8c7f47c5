# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-cnn-agfloor/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
22.1107 20.907 16.0746 26.4519 1
22.1694 20.8772 16.2401 25.2355 1
22.9462 25.9039 23.3793 28.779 0
23.0049 25.5063 22.6886 29.0326 0
64.0839 66.6675 64.1731 69.6518 0
64.1426 65.0104 63.016 67.0386 0
20.3227 17.8255 14.7164 21.4927 0
20.3735 18.2765 14.435 22.6819 0
20.3227 18.1794 14.8795 21.7535 0
20.3735 18.639 15.0889 23.6129 0
20.3227 18.5015 15.4061 22.0054 0
20.3735 18.4286 15.6088 22.6279 0
19.3473 19.083 15.7805 23.2489 1
19.371 19.2813 15.6719 22.692 1
19.2411 21.1751 18.6191 23.6925 1
19.2648 21.3476 18.6629 25.0562 1
44.8068 40.3909 37.8061 42.5015 0
44.8305 40.491 38.4469 42.8395 0
21.2571 23.773 18.6004 28.8425 0
21.2731 23.0542 18.2585 28.4056 1
20.886 23.0196 18.1604 27.9432 0
20.902 23.9426 18.4355 29.7781 0
22.9317 24.1067 18.4504 30.5569 1
22.9477 22.8508 17.705 28.4442 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:74.1344]
set yrange [0:74.1344]
set size square
set grid
set key top left
set title 'gcu validate: cnn:c1=16,c2=32,channels=1,classes=10,hidden=128,image=28'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
