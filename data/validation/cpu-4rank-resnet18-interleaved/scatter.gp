# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-resnet18-interleaved/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
462.292 453.463 420.889 479.235 1 453.364
780.627 824.963 806.611 846.43 0 811.612
735.924 762.327 723.148 812.564 1 760.191
900.585 940.92 863.738 1015.5 1 936.066
536.326 541.577 478.463 597.187 1 523.446
863.569 919.064 858.454 982.843 0 914.443
427.417 393.956 357.948 431.531 0 400.745
428.362 422.039 400.541 447.97 1 420.293
430.193 410.343 384.712 433.607 0 401.4
429.328 407.237 377.153 445.254 1 421.513
499.765 496.557 448.106 547.79 1 480.927
503.321 515.465 457.586 582.113 1 513.902
487.377 476.444 427.149 517.022 1 472.35
487.398 497.308 461.196 528.801 1 492.399
416.46 367.144 347.071 388.344 0 380.938
421.178 392.165 356.44 423.706 1 404.435
502.803 501.308 446.522 536.143 1 508.319
631.089 654.222 611.66 685.598 0 670.485
596.739 587.424 550.529 630.554 1 611.994
637.015 680.948 640.184 727.187 0 671.347
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:1067.28]
set yrange [0:1067.28]
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
