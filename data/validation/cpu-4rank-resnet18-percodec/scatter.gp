# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-resnet18-percodec/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
470.62 488.507 412.042 536.652 1 490.326
788.758 862.327 833.22 894.551 0 848.819
762.596 786.563 677.518 940.298 1 815.481
927.362 989.742 884.075 1057.58 1 985.506
553.423 535.743 500.191 578.588 1 550.183
881.163 945.5 896.853 997.907 0 954.192
443.53 464.364 432.569 495.734 1 440.932
444.383 447.634 431.473 463.563 1 437.261
457.187 493.813 450.401 528.005 1 464.996
455.868 488.985 429.187 575.503 1 473.906
570.429 563.926 494.738 621.242 1 561.94
573.383 551.946 506.869 579.662 1 556.282
539.039 475.792 439.107 511.444 1 522.284
540.124 491.982 472.442 519.109 1 517.554
450.617 443.131 414.717 474.659 1 425.756
454.191 434.512 411.602 462.597 1 446.121
555.305 557.241 523.39 603.883 1 553.206
667.091 689.75 623.038 776.595 1 715.179
663.528 682.377 545.458 809.29 1 669.936
676.5 757.685 727.137 787.741 1 723.698
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:1111.46]
set yrange [0:1111.46]
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
