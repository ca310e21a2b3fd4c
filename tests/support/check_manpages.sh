#!/usr/bin/env bash
# Every function the public headers declare PETSC_EXTERN has a man page in PETSc's format at its
# definition: a /*@ ... @*/ comment whose first line is "Name - summary", which says how collective the
# call is ("Collective", "Logically Collective" or "Not Collective"), has a "Level:" line and a ".seealso:"
# line, and is followed (blank lines skipped) by the definition of Name.  PETSc's doc tools read this form.
#
#   check_manpages.sh SRC_DIR
#
# Prints one line per function ("ok NAME FILE" or "MISSING NAME"), then PASS or FAIL; exit 1 on FAIL.
set -uo pipefail
root=${1:?usage: check_manpages.sh SRC_DIR}
headers=("$root/include/petscellwarp.h" "$root/include/petscellwarpassembly.h")

# function names: PETSC_EXTERN <type> Name(   (variables and arrays declared PETSC_EXTERN are not functions)
mapfile -t names < <(sed -n 's/^PETSC_EXTERN[[:space:]]\{1,\}[A-Za-z_][A-Za-z_0-9 *]*[[:space:]*]\([A-Za-z_][A-Za-z_0-9]*\)[[:space:]]*(.*/\1/p' "${headers[@]}" | sort -u)
[ ${#names[@]} -gt 0 ] || { echo "FAIL: no PETSC_EXTERN functions found in ${headers[*]}"; exit 1; }

mapfile -t sources < <(find "$root/src" -type f \( -name '*.c' -o -name '*.cu' -o -name '*.cxx' \) | sort)

# man_pages FILE: prints "Name" for each complete /*@ block (see above) followed by a definition of Name.
man_pages() {
  awk '
    /^\/\*@/ { inman = 1; name = ""; level = 0; coll = 0; see = 0; rest = $0; sub(/^\/\*@[A-Z]*[[:space:]]*/, "", rest)
               if (rest ~ /^[A-Za-z_][A-Za-z_0-9]* - /) { split(rest, w, " "); name = w[1] }
               next }
    inman && /@\*\// { inman = 0; want = name; ok = level && coll && see; next }
    inman { t = $0; sub(/^[[:space:]]+/, "", t)
            if (name == "" && t ~ /^[A-Za-z_][A-Za-z_0-9]* - /) { split(t, w, " "); name = w[1] }
            if (t ~ /^Level:/) level = 1
            if (t ~ /^(Not |Logically )?Collective/) coll = 1
            if (t ~ /^\.seealso:/) see = 1
            next }
    want != "" && /^[[:space:]]*$/ { next }
    want != "" { if (ok && index($0, want "(") > 0 && $0 !~ /;[[:space:]]*$/) print want; want = "" }
  ' "$1"
}

documented=$(for f in "${sources[@]}"; do man_pages "$f" | sed "s|\$| ${f#"$root"/}|"; done)
fail=0
for n in "${names[@]}"; do
  hit=$(printf '%s\n' "$documented" | awk -v n="$n" '$1 == n { print $2; exit }')
  if [ -n "$hit" ]; then echo "ok $n $hit"; else echo "MISSING $n"; fail=1; fi
done
if [ $fail = 0 ]; then echo "PASS: ${#names[@]} public functions have man pages"; else echo "FAIL: public functions without a man page (/*@ Name - ..., Collective, Level:, .seealso: @*/ at the definition)"; fi
exit $fail
