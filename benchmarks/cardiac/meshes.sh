# The cardiac benchmarks' mesh names -> options of examples/cardiac (sourced by bench.sh and cpu_allcores.sh).
# Unknown names fail: mesh_check NAME... before any run, so that a typo never runs the default mesh instead.
mesh_opts() {
  case $1 in
    s6k) echo "-mesh lvstruct -lv_nodes 5000" ;;
    lv20k) echo "-mesh lv" ;;
    lv144k) echo "-mesh lv -refine 1" ;;
    lv1m) echo "-mesh lv -refine 2" ;;
    s2m) echo "-mesh lvstruct -lv_nodes 2400000" ;;
    # the refinement study (refine_study.sh): the 6.5k gmsh LV refined 0..3 times (6.5k, 46k, 326k, 2.48 M vertices)
    lv6k) echo "-mesh lv6k" ;;
    lv6k-r1) echo "-mesh lv6k -refine 1" ;;
    lv6k-r2) echo "-mesh lv6k -refine 2" ;;
    lv6k-r3) echo "-mesh lv6k -refine 3" ;;
    *) echo "unknown mesh $1 (known: s6k lv20k lv144k lv1m s2m lv6k lv6k-r1 lv6k-r2 lv6k-r3)" >&2; return 2 ;;
  esac
}
mesh_check() {
  for m in "$@"; do mesh_opts "$m" > /dev/null || exit 2; done
}
