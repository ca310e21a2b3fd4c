B=/work/main/build
mkdir -p $OUT/asm
timeout 400 $B/benchmarks/assembly/assembly_bench -nodes 350000 -methods atomic,atomic:compact,atomic:agg,atomic:match,atomic:hash,atomic:hash256,sharednz -repeats 10 -cpu_repeats 0 -o $OUT/asm > $OUT/asm/asm.log 2>&1; echo asm rc $?
grep -v "^  " $OUT/asm/asm.log | grep -v "^DMAssembly\|^$" | tail -32
