# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18-cause35/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
518.152 495.568 432.224 579.293 1
534.317 531.66 441.561 648.172 1
673.732 707.821 647.031 775.045 1
851.503 819.14 760.444 909.906 1
663.633 607.18 565.426 658.163 0
693.602 634.252 563.039 703.279 0
725.994 698.963 646.867 760.282 1
852.134 760.937 669.386 852.068 1
576.358 542.727 436.26 635.25 1
580.715 510.261 438.008 593.336 1
736.223 753.882 714.459 801.222 1
897.901 863.92 814.238 919.902 0
515.088 485.121 394.71 630.252 1
517.166 432.9 398.526 481.378 0
513.973 463.931 426.329 518.928 0
516.185 505.057 446.166 566.035 1
586.496 565.956 503.713 668.192 1
568.688 557.345 483.833 640.018 1
588.707 516.206 450.326 584.7 1
574.612 593.149 469.605 746.929 1
514.191 493.425 429.57 570.138 1
515.164 502.563 457.18 562.08 1
553.675 588.383 507.823 677.058 1
617.774 605.202 519.362 726.478 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:966.898]
set yrange [0:966.898]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
