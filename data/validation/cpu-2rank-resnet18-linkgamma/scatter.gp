# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18-linkgamma/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
237.493 255.696 232.185 287.992 1 244.853
271.811 286.286 253.254 303.579 0 298.53
471.703 498.884 482.921 518.019 0 493.782
850.587 876.663 860.168 889.017 0 874.35
2048.19 2070.18 2005.01 2147.72 1 2066.19
317.559 357.289 301.873 389.394 1 359.015
367.803 401.791 354.489 474.557 0 395.429
391.107 436.944 412.046 478.507 0 445.239
580.088 572.234 549.615 596.251 1 571.006
1173.66 1133.42 1103.13 1173.59 1 1134.2
225.612 224.094 196.301 254.777 1 233.887
228.126 231.142 209.208 265.638 1 234.838
221.612 225.667 183.891 253.865 1 235.279
222.189 216.454 180.986 236.481 1 239.141
227.678 250.107 240.518 260.451 0 245.498
345.834 339.163 291.387 364.614 1 341.207
350.268 346.395 321.868 370.955 1 337.582
368.953 374.611 345.74 409.714 1 374.328
423.466 432.267 404.869 454.899 1 434.327
593.383 595.101 558.189 636.206 1 615.127
217.545 225.733 209.387 236.908 1 224.456
219.218 232.079 206.206 270.829 1 226.917
219.507 236.165 212.474 257.589 1 226.132
222.204 245.131 217.534 281.503 1 228.478
230.994 244.622 219.554 266.884 0 244.282
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:2256.1]
set yrange [0:2256.1]
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
