# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-resnet18-cause35/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
1125.57 982.521 870.796 1210.18 1
1115.62 948.828 851.274 1052.06 1
1308.43 1355.08 1181.14 1632.68 1
1567.68 1349.35 1297.44 1384.61 0
1576.07 1260.41 1096.8 1420.47 0
1544.41 1134.86 996.263 1263.32 0
1674.18 1505.47 1270.48 1810.27 1
1738.96 1411.69 1251.98 1566.92 0
1040.42 887.874 776.186 1027.02 1
1062.11 974.64 834.741 1255.92 1
1039.07 872.569 795.554 959.527 0
1062.15 897.214 843.732 1000.22 0
1100.24 1088.37 916.707 1396.06 1
1142.71 1052.82 817.216 1449.84 1
1100.46 928.038 878.004 1003.51 0
1149.91 1025.48 857.864 1357.8 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:1901.78]
set yrange [0:1901.78]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
