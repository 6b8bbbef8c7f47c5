# gcu validate: predicted vs measured iteration time (mean, p10-p90 bars), y = x.
if (!exists('outfile')) outfile = 'data/validation/cpu-34rank-bert-scaleout/scatter.png'
set terminal pngcairo size 800,750 noenhanced
set output outfile
$d << EOD
341.084 356.664 344.027 372.6 1 356.063
345.611 464.952 450.484 485.904 0 463.483
469.027 480.291 459.896 498.552 1 478.269
493.423 605.484 594.259 619.312 0 601.906
355.331 451.72 431.947 471.652 0 438.674
356.378 593.833 569.153 619.363 0 592.806
416.051 484.959 468.901 505.704 0 480.792
427.407 655.848 639.476 671.954 0 652.614
335.592 347.386 322.909 370.277 0 351.119
343.752 450.461 438.637 466.142 0 449.103
335.272 346.531 331.019 365.947 1 349.727
347.855 451.177 433.831 470.319 0 456.856
325.528 328.685 317.323 343.867 1 338.617
329.565 428.292 413.505 443.734 0 432.162
330.926 336.264 316.398 352.903 1 339.276
338.938 432.443 424.177 442.541 0 433.607
EOD
set xlabel 'predicted iteration time (ms)'
set ylabel 'measured iteration time (ms)'
set xrange [0:706.552]
set yrange [0:706.552]
set size square
set grid
set key top left
set datafile missing 'NaN'
set title 'gcu validate: bert:classes=2,dropout=0,heads=4,hidden=256,intermediate=1024,layers=4,positions=64,seq=64,type_vocab=2,vocab=1000'
plot x with lines lc rgb '#888888' title 'y = x', \
     $d using 1:($5 == 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 lc rgb '#4477aa' title 'cell', \
     $d using 1:($5 == 1 ? $2 : 1/0):3:4 with yerrorbars pt 6 lc rgb '#cc6677' title 'noise-limited cell', \
     $d using 1:6 with points pt 2 ps 0.8 lc rgb '#222222' title 'machine speed taken out'
set output
