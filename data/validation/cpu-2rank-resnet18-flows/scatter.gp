# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18-flows/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
293.626 297.229 286.126 307.664 0 299.279
536.683 551.411 540.168 564.283 0 NaN
2012.86 2056.21 2005.49 2139.06 0 2055.58
349.542 371.188 356.795 381.99 0 369.264
435.334 463.505 453.163 476.829 0 462.79
1159.19 1120.04 1099.26 1149.94 0 1121.34
312.808 312.636 303.732 326.77 1 312.175
559.459 572.85 562.08 591.651 0 570.826
2033.39 2072.85 2027.8 2143.08 0 2072.2
275.555 277.767 269.601 290.674 1 277.378
275.931 273.977 263.234 285.537 1 277.035
280.111 272.586 262.502 280.698 1 NaN
280.326 281.853 272.164 297.64 1 279.672
279.159 274.979 268.845 283.472 1 NaN
292.851 280.086 270.215 288.425 0 NaN
301.143 312.046 295.619 325.607 0 313.97
301.738 312.533 299.209 327.697 0 314.355
317.671 314.437 304.261 325.02 1 NaN
296.872 304.446 290.747 318.867 0 302.805
296.503 302.114 288.514 313.044 0 NaN
308.579 300.133 287.39 314.318 1 NaN
267.575 266.228 261.526 272.177 1 268.901
270.716 273.994 266.559 282.722 1 274.727
296.843 285.148 275.905 292.065 0 NaN
285.179 288.072 276.084 306.063 1 289.578
338.614 351.605 337.843 362.97 1 NaN
772.774 904.723 878.624 936.438 0 NaN
335.674 334.77 324.725 346.198 1 332.862
363.897 367.557 357.331 379.066 1 365.013
583.062 554.019 535.194 570.068 0 NaN
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:2251.23]
set yrange [0:2251.23]
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
