# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18-cause35b/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
356.922 358.927 334.954 387.381 1
373.605 355.249 344.4 370.312 1
580.764 599.006 583.464 615.588 0
715.824 708.427 693.081 732.609 1
408.771 431.28 409.681 445.48 1
440.287 447.747 429.102 466.754 1
492.721 546.762 523.316 571.404 0
606.555 562.549 546.249 578.063 0
352.741 342.648 327.882 361.646 1
360.816 338.047 308.745 371.426 1
347.839 323.487 311.852 334.399 0
356.3 334.802 319.305 349.076 0
385.175 367.801 342.761 397.468 1
385.872 376.458 348.543 407.55 1
387.176 377.067 352.691 399.399 1
392.488 375.261 354.798 392.132 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:770.239]
set yrange [0:770.239]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
