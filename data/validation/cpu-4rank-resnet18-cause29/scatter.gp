# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-resnet18-cause29/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
340.401 404.083 394.848 416.142 0
398.599 405.267 390.016 429.116 1
719.488 815.082 801.04 831.044 0
862.522 876.415 869.538 884.622 1
3115.55 3189.56 3060.3 3308.63 1
3277.89 3309.88 3217.27 3419.28 1
424.905 437.389 428.088 447.747 1
405.292 436.95 424.895 455.167 0
430.489 450.111 436.962 465.753 0
421.408 453.994 433.772 466.721 0
519.128 513.177 499.94 521.391 1
526.374 527.07 517.29 539.161 1
319.535 331.398 320.116 345.029 1
323.71 329.944 320.472 339.025 0
330.566 352.764 340.745 369.605 0
346.512 354.083 344.637 364.731 1
422.193 432.311 417.399 450.317 1
510.523 507.824 490.596 531.855 1
380.205 400.697 380.247 428.76 0
402.748 401.631 377.939 428.861 1
549.476 598.076 571.581 623.469 0
637.767 629.373 613.979 649.395 1
1707.01 1729.99 1659.97 1801.3 1
1864.18 1857.71 1769.32 1950.41 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:3591.24]
set yrange [0:3591.24]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
