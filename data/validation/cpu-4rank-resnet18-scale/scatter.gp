# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-resnet18-scale/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
911.971 1038.24 859.097 1198.57 0 1045.49
1135.17 1309 1167.73 1454.15 0 1348.26
1168.3 1374.29 1105.92 1677.12 1 1379.05
1266.87 1527.42 1261.25 1876.96 0 1539.25
907.497 1008.99 843.54 1179.69 1 994.905
892.055 981.056 869.578 1091.6 1 951.011
1134.1 1036.85 774.65 1264.07 1 1094.26
1134.1 1043.02 856.304 1250.31 1 1118.12
1005.95 1094.99 916.337 1286.47 1 1047.78
1081.13 1335.75 1173.09 1481.87 1 1232.16
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:1971.81]
set yrange [0:1971.81]
set size square
set grid
set key top left
set datafile missing 'NaN'
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell', \
     $d using 1:6 with points pt 2 ps 0.8 lc rgb '#222222' title 'machine speed taken out'
set output
