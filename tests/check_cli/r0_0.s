# r0 = 0; exit: the program of tests/limits' log cases (recorded::limits)
r0 = 0
exit
