set terminal pngcairo size 1120,520
set output '.plot_tta.png.tmp'
set logscale xy
set xrange [88.5512:2073.88]
set yrange [88.5512:2073.88]
set xlabel 'measured iterations to target'
set ylabel 'predicted iterations'
set key left top
set grid
set multiplot layout 1,2 title 'TTA validation (fashion-mnist, T_0 measured): predicted vs measured iterations'
set title 'pilots of 3%: 11 cases drawn, 11 never'
plot x w l lc rgb 'black' t 'y = x', 1.15*x w l dt 2 lc rgb 'gray' t '+-15%', 0.85*x w l dt 2 lc rgb 'gray' notitle, \
  'tta-scatter.dat' index 0 u 1:2:3:4 w yerrorbars pt 7 lc rgb '#1f77b4' t 'reaches (80% interval)', \
  'tta-scatter.dat' index 1 u 1:2:3:4 w yerrorbars pt 9 lc rgb '#ff7f0e' t 'uncertain (estimate)'
set title 'pilots of 10%: 11 cases drawn, 11 never'
plot x w l lc rgb 'black' t 'y = x', 1.15*x w l dt 2 lc rgb 'gray' t '+-15%', 0.85*x w l dt 2 lc rgb 'gray' notitle, \
  'tta-scatter.dat' index 2 u 1:2:3:4 w yerrorbars pt 7 lc rgb '#1f77b4' t 'reaches (80% interval)', \
  'tta-scatter.dat' index 3 u 1:2:3:4 w yerrorbars pt 9 lc rgb '#ff7f0e' t 'uncertain (estimate)'
unset multiplot
