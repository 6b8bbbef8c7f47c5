# gcu validate: predicted vs measured iteration time (median, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
666.986 1337.54 970.796 1775.51 1
728.246 1390.95 1045.94 1856.01 1
842.25 1152.87 917.456 1582.76 1
1073.75 1662.54 1516.6 1909.15 0
2110.59 2614.56 2441.59 3056.73 1
2519.31 3120.38 2802.67 3764.5 1
955.598 1793.37 1590.99 2068.44 0
962.296 1882.39 1645.1 2319.13 0
976.569 1947.68 1472.48 2555.41 1
1135.05 1666.42 1407.93 2420.78 1
1527.25 1836.72 1552.47 2901.48 1
1857.83 2146.73 1856.62 2860.07 1
659.425 1119.85 818.927 1591.77 1
660.162 1064.67 947.089 1281.73 0
661.373 1650.32 994.359 1935.45 0
665.073 1194.45 948.565 1757.89 1
669.343 853.158 764.966 1224.9 1
685.162 1487.44 1126.45 2702.43 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:3953.73]
set yrange [0:3953.73]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
