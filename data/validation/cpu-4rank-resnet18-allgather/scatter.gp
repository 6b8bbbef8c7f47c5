# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-resnet18-allgather/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
1253.21 1219.98 1078.36 1373.51 1 1257.97
1290.22 1371.01 1211.25 1576.61 1 1391.29
1489.25 1547.16 1407.43 1684.51 1 1573.45
2005.65 2012.79 1825.07 2171.37 1 2025.88
3673.71 3545.92 3417.51 3633.8 1 3535.34
1147.25 1045.37 882.554 1277.7 1 1070.81
1147.25 1126.39 1001.96 1235.52 0 1086.36
1149.53 1118.14 985.887 1260.53 1 1071.79
1167.39 1177.78 964.629 1384.65 1 1165.25
1240.04 1139.69 979.606 1345.46 1 1244.68
1214.75 1196.06 1016.34 1364.75 1 1214.23
1214.75 1189.25 1067.02 1316.6 1 1222.03
1214.75 1217.48 1049.63 1368.4 1 1189.24
1220.42 1279.34 1164.88 1461.23 1 1271.42
1262.75 1352.65 1184.92 1486.59 1 1329.1
1280.33 1283.84 1133.45 1433.85 1 1198.57
1299.48 1382.65 1234.38 1536.1 0 1370.16
1358.62 1364.32 1235.22 1564.28 1 1408.19
1589.9 1712.95 1577.29 1837.56 1 1717.35
2405.01 2419.69 2273.9 2572.62 1 2353.59
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:3858.4]
set yrange [0:3858.4]
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
