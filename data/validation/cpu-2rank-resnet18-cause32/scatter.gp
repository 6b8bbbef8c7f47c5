# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18-cause32/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
276.113 297.003 287.924 306.173 0
301.106 300.075 293.529 307.131 1
515.863 553.833 545.376 562.395 0
646.015 643.396 636.18 652.559 1
298.457 362.064 353.019 370.807 0
357.957 372.087 360.987 385.067 0
426.059 461.828 447.675 475.551 0
533.072 497.563 489.639 505.181 0
280.724 273.149 266.482 279.241 0
292.786 286.473 277.527 294.581 0
281.516 274.336 265.743 281.751 1
294.481 287.05 278.718 299.554 0
313.064 310.751 300.043 322.078 1
318.84 311.064 299.109 323.551 1
314.239 313.118 300.939 324.846 1
323.666 312.803 301.739 322.09 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:686.187]
set yrange [0:686.187]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
