# gcu validate: predicted vs measured iteration time (median, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = '/tmp/vr18/out/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
431.047 688.837 555.704 1261.61 1
487.856 687.225 494.446 721.314 1
581.779 771.703 683.761 839.642 0
754.794 721.284 520.222 1011.43 1
2218.46 2194.46 2101.62 2292.98 1
2471.04 2330.13 2060.03 2561.54 1
428.651 994.726 791.792 1188.1 0
455.135 993.199 817.708 1417.64 1
455.389 1061 886.246 1649.17 1
590.36 1136.5 781.863 1570.71 1
1198.76 1335.82 1312.5 1399.61 0
1448.48 1614.47 1454.18 1689.31 1
423.879 564.114 432.835 749.336 1
423.942 627.255 454.452 850.482 1
425.398 421.308 179.733 745.289 1
427.771 726.405 418.743 893.139 1
434.86 568.544 489.101 661.906 1
451.621 617.663 505.105 724.696 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:2690.62]
set yrange [0:2690.62]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
