# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-4rank-cnn-f16floor/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
20.6056 20.1326 15.6895 25.2021 1
20.6473 20.3725 15.8315 24.8235 1
24.0007 24.7999 22.1195 28.0512 1
24.0425 25.183 22.4088 28.5622 1
64.3125 65.0154 63.2551 66.8431 1
64.3543 66.1905 63.5945 69.1901 1
26.2263 24.1689 19.6099 29.0978 0
26.2681 23.5478 19.3483 28.592 0
26.2263 25.5734 20.6597 30.2291 1
26.2681 26.179 21.0428 31.0732 1
38.4803 38.9347 36.929 40.864 1
38.5221 38.0409 35.8199 40.3273 1
20.9745 19.6574 15.6149 24.2332 1
21.0163 20.0738 15.7426 24.9429 1
24.3697 24.7145 22.2651 27.6016 1
24.4114 24.3875 21.4775 27.9813 1
64.6815 64.8468 62.8203 66.9893 1
64.7233 66.394 63.4543 69.4302 1
33.1074 32.9007 24.972 41.8867 1
33.1492 31.9597 24.3407 41.0687 1
33.4198 32.8755 25.6705 39.9986 1
33.4616 32.6419 24.5496 40.2972 1
35.2629 33.37 26.1761 41.6778 1
35.3047 32.7393 24.9085 40.5823 1
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:73.9017]
set yrange [0:73.9017]
set size square
set grid
set key top left
set title 'gcu validate: cnn:c1=16,c2=32,channels=1,classes=10,hidden=128,image=28'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell'
set output
