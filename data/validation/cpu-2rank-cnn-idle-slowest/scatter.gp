# gcu validate: predicted vs measured iteration time (median, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-cnn-idle-slowest/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
9.75886 9.94302 7.93388 12.6961 1
9.7877 9.52957 7.45896 13.3747 1
15.833 12.4974 10.1217 15.6831 0
15.8618 11.1318 9.45575 14.7905 0
43.8211 41.4684 38.638 46.4716 0
43.8499 39.4451 37.4672 43.0109 0
10.5324 11.8864 8.99563 15.9203 0
10.5612 12.5241 10.3877 16.8667 0
13.5694 11.763 8.92855 15.8531 1
13.5983 12.605 9.62035 16.5538 1
27.5635 23.2903 21.758 27.5119 0
27.5923 22.9148 21.1799 24.6642 0
10.078 12.0719 8.24027 16.587 1
10.1068 15.5138 8.16101 20.07 0
9.84978 15.6913 8.49911 20.0158 0
9.87862 15.8588 11.2865 20.1698 0
10.9819 15.4826 10.0551 20.0221 0
11.0107 16.1883 10.7712 20.2059 0
9.55705 11.4912 8.0658 15.1527 1
9.58589 10.5637 8.11177 15.4345 1
9.67202 11.6697 8.22306 16.2238 0
9.70085 8.53711 7.24024 12.9407 1
10.232 11.5588 8.04671 14.7488 1
10.2608 8.13613 7.44145 12.7618 0
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:49.7952]
set yrange [0:49.7952]
set size square
set grid
set key top left
set title 'gcu validate: cnn:c1=16,c2=32,channels=1,classes=10,hidden=128,image=28'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
