# gcu validate: predicted vs measured iteration time (median, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-cnn/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
15.0797 16.8001 15.2925 42.5394 1
15.0929 15.9311 14.5311 20.0491 1
21.059 18.7355 13.7552 27.488 1
21.0722 18.9296 15.9303 79.9945 1
49.1572 67.8535 47.9595 91.5448 1
49.1704 51.8734 46.7913 74.0906 1
16.8834 40.4938 18.3351 60.6164 1
16.8966 27.9962 15.9948 48.0105 1
19.873 19.9598 16.0293 27.9119 1
19.8863 22.4134 15.9113 55.0291 1
33.9221 48.2798 28.7225 67.355 1
33.9354 39.8492 28.5306 57.5149 1
14.4543 15.9293 12.0298 36.2228 1
14.4675 16.4026 14.7005 49.1544 1
14.5898 17.1393 15.7564 42.1695 1
14.603 16.7915 14.2755 24.6842 1
15.7263 16.1243 14.2473 59.9649 1
15.7396 20.9865 13.9704 47.683 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:97.1221]
set yrange [0:97.1221]
set size square
set grid
set key top left
set title 'gcu validate: cnn:c1=16,c2=32,channels=1,classes=10,hidden=128,image=28'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
