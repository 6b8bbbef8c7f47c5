# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-2rank-resnet18-f16floor/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
122.181 138.782 130.995 145.053 0
151.215 146.459 138.443 158.371 1
425.496 433.835 428.631 438.307 1
487.493 484.304 477.542 491.58 1
1985.68 1976.35 1934.49 2055.68 1
2047.68 2041.47 1993.49 2123 1
141.744 209.062 197.047 217.632 0
176.341 215.39 197.269 232.487 0
245.633 312.847 303.707 319.577 0
299.937 337.881 326.126 350.17 0
1017.01 1044.57 1017.94 1079.18 1
1078.65 1102.69 1067.6 1183.49 1
145.381 138.581 129.247 149.003 1
174.591 142.027 134.073 150.53 0
449.696 451.891 443.287 461.605 1
510.87 479.885 471.742 492.188 0
2009.88 2001.89 1963.48 2073.3 1
2071.05 2025.84 1982.16 2087.65 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:2230.15]
set yrange [0:2230.15]
set size square
set grid
set key top left
set title 'gcu validate: resnet18:channels=3,classes=10,image=32'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
