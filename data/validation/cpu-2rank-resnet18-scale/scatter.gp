# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18-scale/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
424.2 507.876 432.312 580.456 1 497.128
627.843 672.564 626.519 757.565 0 704.333
561.429 667.837 474.824 949.924 1 644.064
629.179 619.861 542.781 758.067 1 658.291
406.781 460.58 381.205 595.549 1 478.091
406.76 438.787 356.843 496.576 1 442.654
473.993 566.616 442.995 705.867 1 544.835
475.463 508.738 380.118 645.245 1 521.093
417.007 459.061 381.513 563.106 1 497.813
475.444 641.002 537.224 787.889 1 531.442
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:998.42]
set yrange [0:998.42]
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
