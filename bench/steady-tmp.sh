#!/bin/sh
# per process: min and median of the last half of N tasks of T turns; 3 processes
for i in 1 2 3; do ../node_modules/.bin/node --conditions=source reps-tmp.ts ${1:-1000} ${2:-40} | awk '{n=NF-3; c=0; for (i=2+int(n/2); i<=n+1; i++) {a[c++]=$i}; asort(a); printf "min %.4f med %.4f | ", a[1], a[int(c/2)+1]; delete a}'; done; echo
