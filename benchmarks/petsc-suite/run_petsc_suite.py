#!/usr/bin/env python3
"""PETSc's own test cases, run with MATELLWARP substituted for AIJCUSPARSE (and for AIJ in the GAMG tests).

The cases are read from the /*TEST blocks of PETSc's source tree with PETSc's own parser (config/testparse.py),
and their requirements are judged by PETSc's own harness code (config/gmakegentest.py, generateExamples._isRun).
See README.md beside this file for the selection, the substitutions, the comparison and the commands.
"""

import argparse
import concurrent.futures
import glob
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# ---- selection ------------------------------------------------------------------------------------------
CUSPARSE_RE = re.compile(r'(^|\s)-(dm_)?mat_type\s+(seq|mpi)?aijcusparse\b')
# in the source text the type may sit inside a loop: -mat_type {{aijcusparse mpiaijcusparse}}
CUSPARSE_FILE_RE = re.compile(r'(^|\s)-(dm_)?mat_type\s+(\{\{[^}]*?)?\b(seq|mpi)?aijcusparse\b')
GAMG_RE = re.compile(r'(^|\s)-pc_type\s+gamg\b')
OTHER_TYPE_RE = re.compile(r'(^|\s)-(dm_)?mat_type\s+(\S+)')
GAMG_DIRS = ['src/ksp/ksp/tutorials', 'src/snes/tutorials', 'src/ksp/pc/tests']
# DMPlex finite-element programs (PetscFE residuals and Jacobians through DMPlexSNESComputeJacobianFEM/TS): every
# case of theirs that is neither an AIJCUSPARSE nor a GAMG case and sets no other matrix type runs as the GAMG cases
# do, AIJ against MATELLWARP through -dm_mat_type (the matrices users of issue 17 assemble: DMPlex's numbering,
# fieldsplit, PCMG, block sizes, constraints)
FEM_FILES = {'src/snes/tutorials/ex%d.c' % k for k in (8, 11, 12, 13, 17, 20, 23, 24, 26, 27, 34, 36, 56, 62, 64, 69, 71,
                                                     76, 77)} | \
            {'src/ts/tutorials/ex%d.c' % k for k in (18, 30, 45, 46, 47, 48, 53, 76, 77)} | \
            {'src/snes/tests/ex13.c', 'src/snes/tests/ex15.c'}
# KSP and PC programs (their linear solvers and preconditioners on an assembled AIJ: ASM, GASM, block Jacobi, SOR,
# Eisenstat, fieldsplit, composite, deflation, ...): every case of these directories that is none of the above and sets
# no other matrix type, run as the GAMG cases are (-mat_type and -dm_mat_type)
KSP_DIRS = ['src/ksp/ksp/tutorials', 'src/ksp/ksp/tests', 'src/ksp/pc/tests', 'src/ksp/pc/tutorials']
KINDS = ('cusparse', 'gamg', 'fem', 'ksp')
AIJ_KINDS = ('gamg', 'fem', 'ksp')  # AIJ against MATELLWARP through -mat_type and -dm_mat_type (command_lines)
BROAD_KINDS = ('fem', 'ksp')  # whole directories: a program without a matrix of ours, or not for AIJ, is a skip (judge)
SRC_EXTS = ('.c', '.cxx', '.cu', '.F90', '.F', '.kokkos.cxx')
# files that mention the option but hold no runnable /*TEST block of their own (man pages, the type itself)
NOT_TESTS = {'src/mat/impls/aij/seq/seqcusparse/aijcusparse.cu', 'src/mat/interface/matreg.c'}

# ---- type names the comparison may ignore (see README: "Filters") ------------------------------------------
TYPE_WORDS = r'(seq|mpi)?(aij|aijcusparse|aijellwarp|ellwarp|baij|sbaij|dense|densecuda)|(seq|mpi)?cuda|standard|seq|mpi'
TYPE_LINE_RE = re.compile(r'^\s*(Mat Object:.*|type:\s*(' + TYPE_WORDS + r')\s*|.*\bMat type\b.*?\b(' + TYPE_WORDS +
                          r')\b.*|[Mm]atrix type:\s*(' + TYPE_WORDS + r')\s*)$')
NUM_RE = re.compile(r'[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b', re.I)


def log(msg):
    print(msg, flush=True)


# ---- PETSc trees ----------------------------------------------------------------------------------------
def find_trees(args):
    prefix = args.petsc_prefix or os.environ.get('ELLWARP_PETSC_PREFIX') or os.environ.get('PETSC_DIR')
    if not prefix:
        sys.exit('run_petsc_suite.py: no PETSc: source scripts/env.sh first (or pass --petsc-prefix)')
    if os.environ.get('PETSC_ARCH') and not os.path.exists(os.path.join(prefix, 'include', 'petscconf.h')):
        prefix = os.path.join(prefix, os.environ['PETSC_ARCH'])
    src = args.petsc_src
    if not src:
        for c in [os.environ.get('ELLWARP_PETSC_SRC_DIR'), os.path.join(prefix, 'share', 'petsc-src'), os.environ.get('PETSC_DIR')]:
            if c and os.path.exists(os.path.join(c, 'config', 'testparse.py')):
                src = c
                break
    if not src or not os.path.exists(os.path.join(src, 'config', 'testparse.py')):
        sys.exit('run_petsc_suite.py: no PETSc source tree with config/testparse.py (pass --petsc-src)')
    src = os.path.realpath(src)
    # the configured arch directory of the source tree: PETSc's requirement check reads its petscconf.h
    arch = None
    for d in sorted(glob.glob(os.path.join(src, '*', 'include', 'petscconf.h'))):
        arch = d.split(os.sep)[-3]
        break
    if not arch:
        sys.exit('run_petsc_suite.py: %s has no configured PETSC_ARCH directory (*/include/petscconf.h)' % src)
    return os.path.realpath(prefix), src, arch


def petsc_harness(src, arch, scratch):
    sys.path.insert(0, os.path.join(src, 'config'))
    import testparse  # noqa: E402  (PETSc's parser)
    import gmakegentest  # noqa: E402  (PETSc's harness generator: requirement checks, test options)
    os.makedirs(scratch, exist_ok=True)
    cwd = os.getcwd()
    try:
        gen = gmakegentest.generateExamples(petsc_dir=src, petsc_arch=arch, testdir=scratch)
    finally:
        os.chdir(cwd)
    return testparse, gen


# ---- cases ----------------------------------------------------------------------------------------------
def split_varsets(args):
    # the same split testparse uses for loop variables
    return [v for v in re.split(r'(?:^|(?<=\s))-(?=[a-zA-Z])', args) if v.strip()]


def expand_loops(tdict, testparse):
    """Expand every {{...}} loop (shared and separate output, nsize included) into separate cases."""
    nsize = tdict.get('nsize', '1').strip()
    args = ' '.join(tdict.get('args', '').split())
    dims = []  # (name, values)
    if '{{' in nsize:
        _, vals, _ = testparse.parseLoopArgs('nsize ' + nsize)
        dims.append(('nsize', vals.split()))
    pieces = []
    for vs in split_varsets(args):
        vs = vs.strip()
        if '{{' in vs:
            key, vals, _ = testparse.parseLoopArgs(vs)
            opt = vs.split('{{')[0].strip()
            dims.append((key, vals.split()))
            pieces.append(('loop', key, opt))
        else:
            pieces.append(('fixed', '-' + vs, None))
    out = []
    names = [d[0] for d in dims]
    for combo in itertools.product(*[d[1] for d in dims]) if dims else [()]:
        val = dict(zip(names, combo))
        words = []
        for kind, a, opt in pieces:
            if kind == 'fixed':
                words.append(a)
            else:
                words.append('-' + opt + ' ' + val[a])
        suffix = ''.join('+%s-%s' % (k, val[k]) for k in names)
        out.append((suffix, int(val.get('nsize', nsize if '{{' not in nsize else 1)), ' '.join(words)))
    return out


def source_files(src):
    files = set()
    for root, _, names in os.walk(os.path.join(src, 'src')):
        for n in names:
            if not n.endswith(SRC_EXTS):
                continue
            p = os.path.join(root, n)
            rel = os.path.relpath(p, src)
            if rel in NOT_TESTS:
                continue
            try:
                txt = open(p, errors='replace').read()
            except OSError:
                continue
            if '/*TEST' not in txt and '!/*TEST' not in txt:
                continue
            if CUSPARSE_FILE_RE.search(txt):
                files.add((rel, 'cusparse'))
            if any(rel.startswith(d + '/') for d in GAMG_DIRS) and GAMG_RE.search(txt):
                files.add((rel, 'gamg'))
            if rel in FEM_FILES:
                files.add((rel, 'fem'))
            if any(rel.startswith(d + '/') for d in KSP_DIRS):
                files.add((rel, 'ksp'))
    return sorted(files)


def collect_cases(src, testparse, gen):
    cases = []
    seen = set()
    for rel, kind in source_files(src):
        path = os.path.join(src, rel)
        try:
            parsed = testparse.parseTestFile(path, 0)
        except Exception as e:  # a parse failure is reported, not hidden
            cases.append({'name': rel + ':parse', 'result': 'error', 'reason': 'testparse failed: %s' % e})
            continue
        (base, tests), = parsed.items()
        exname = re.sub(r'\.(kokkos\.cxx|cxx|cu|c|F90|F)$', '', base)
        reldir = os.path.dirname(rel)
        build = tests.get('build', {}) if isinstance(tests.get('build'), dict) else {}
        for tname, td in tests.items():
            if tname in testparse.buildkeys or not isinstance(td, dict) or tname == 'build':
                continue
            subs = td.get('subtests') or []
            variants = []
            if subs:
                for s in subs:
                    sd = dict(td)
                    sd.pop('subtests', None)
                    for k, v in td[s].items():
                        if k in ('args', 'requires', 'env'):
                            sd[k] = (sd.get(k, '') + ' ' + v).strip()
                        else:
                            sd[k] = v
                    variants.append((tname + '_' + td[s].get('suffix', s), sd))
            else:
                variants.append((tname, td))
            for vname, vd in variants:
                for loopsfx, nsize, args in expand_loops(vd, testparse):
                    if kind == 'cusparse' and not CUSPARSE_RE.search(args):
                        continue
                    if kind == 'gamg' and (not GAMG_RE.search(args) or CUSPARSE_RE.search(args)):
                        continue
                    if kind in BROAD_KINDS and (GAMG_RE.search(args) or CUSPARSE_RE.search(args)):
                        continue  # the GAMG or AIJCUSPARSE case of this file
                    m = OTHER_TYPE_RE.search(args)
                    if kind in AIJ_KINDS and m and m.group(3) not in ('aij', 'seqaij', 'mpiaij'):
                        continue  # a test of another matrix type (is, nest, baij, aijkokkos, aijmkl, ...): not AIJ's
                    name = '%s-%s%s' % (reldir.replace('src/', '').replace('/', '_'), re.sub('^run', '', vname), loopsfx)
                    if name in seen:
                        continue
                    seen.add(name)
                    req = ' '.join(x for x in [build.get('requires', ''), vd.get('requires', '')] if x)
                    c = {'name': name, 'kind': kind, 'rel': rel, 'reldir': reldir, 'exe': exname, 'nsize': nsize,
                         'args': args, 'requires': req, 'filter': vd.get('filter', ''),
                         'filter_output': vd.get('filter_output', ''), 'output_file': vd.get('output_file', ''),
                         'localrunfiles': vd.get('localrunfiles', ''), 'env': vd.get('env', ''),
                         'timeoutfactor': float(vd.get('timeoutfactor', 1)), 'todo': vd.get('TODO', ''),
                         'depends': build.get('depends', ''), 'lang': base[len(exname):]}
                    d = {'requires': req, 'nsize': str(nsize)}
                    if vd.get('TODO'):
                        c['skip'] = 'TODO in PETSc: %s' % vd['TODO']
                    elif not gen._isRun(d):
                        c['skip'] = 'unmet requires: ' + '; '.join(d['SKIP'])
                    elif not gen._isBuilt(base, {'requires': build.get('requires', '')}):
                        c['skip'] = 'not built by PETSc here (language/requires)'
                    cases.append(c)
    return cases


# ---- option substitution ----------------------------------------------------------------------------
def subst_value(opt, val, run, mode):
    """The value of option OPT in the reference ('ref') or the ellwarp ('ell') run."""
    o = opt.lstrip('-')
    m = re.fullmatch(r'(seq|mpi)?aijcusparse', val)
    if m:  # the type's name as the value of any option (-mat_type, -dm_mat_type, ex18's -convname, ...)
        p = m.group(1) or ''
        if run == 'ell':  # the root type under its AIJ-family name, as the test named AIJCUSPARSE's (DMStag keeps
            # a DM's matrix type for its interpolation only if the name begins with "aij"); the GAMG cases use "ellwarp"
            return {'': 'aijellwarp', 'seq': 'seqaijellwarp', 'mpi': 'mpiaijellwarp'}[p]
        return val if mode == 'gpu' else p + 'aij'
    if o.endswith('mat_type') and mode == 'cpu' and val in ('densecuda', 'seqdensecuda', 'mpidensecuda'):
        return val.replace('cuda', '')
    if mode == 'cpu' and o.endswith('vec_type') and val in ('cuda', 'seqcuda', 'mpicuda'):
        return {'cuda': 'standard', 'seqcuda': 'seq', 'mpicuda': 'mpi'}[val]
    return val


def substitute(args, run, mode):
    w = shlex.split(args)
    out = []
    skip = False
    for i, a in enumerate(w):
        if skip:
            skip = False
            continue
        if mode == 'cpu' and a.startswith('-') and a.endswith('mat_solver_type') and i + 1 < len(w) and w[i + 1] == 'cusparse':
            # the GPU-only solver package: on the host both runs use the default solver of their matrix type
            # (PETSc's own, registered for AIJ and for MATELLWARP)
            skip = True
            continue
        if i > 0 and w[i - 1].startswith('-') and not re.match(r'-[\d.]', w[i - 1]) and not a.startswith('-'):
            out.append(subst_value(w[i - 1], a, run, mode))
        else:
            out.append(a)
    return out


def command_lines(c, args, src, lib, exe_dir):
    """Return (reference argv, ellwarp argv) without the launcher."""
    exe = os.path.join(exe_dir, c['reldir'].replace('/', '_'), c['exe'])
    # ${wPETSC_DIR}: the harness's PETSC_DIR in the form the shell takes (Windows paths under Cygwin; the same here)
    a = c['args'].replace('${PETSC_DIR}', src).replace('$PETSC_DIR', src).replace('${wPETSC_DIR}', src)
    ref = substitute(a, 'ref', args.mode)
    ell = substitute(a, 'ell', args.mode)
    if c['kind'] in AIJ_KINDS:
        # GAMG tests of AIJ: the reference runs AIJ, the ellwarp run MATELLWARP, through -mat_type (programs
        # that call MatSetFromOptions) and -dm_mat_type (DMCreateMatrix) both; a type the test sets itself
        # (aij, seqaij, mpiaij) is substituted instead
        # (--mode gpu: the reference is AIJCUSPARSE, and both runs get CUDA vectors, as the AIJCUSPARSE cases have)
        given = [m.group(2) or '' for m in OTHER_TYPE_RE.finditer(a)]
        refaij = {'aij': 'aijcusparse', 'seqaij': 'seqaijcusparse', 'mpiaij': 'mpiaijcusparse'} if args.mode == 'gpu' else {}
        for pre in ('dm_', ''):
            if pre in given:
                i = ell.index('-%smat_type' % pre)
                ell[i + 1] = {'aij': 'ellwarp', 'seqaij': 'seqaijellwarp', 'mpiaij': 'mpiaijellwarp'}[ell[i + 1]]
                j = ref.index('-%smat_type' % pre)
                ref[j + 1] = refaij.get(ref[j + 1], ref[j + 1])
            else:
                ref += ['-%smat_type' % pre, refaij.get('aij', 'aij')]
                ell += ['-%smat_type' % pre, 'ellwarp']
            if args.mode == 'gpu' and '-%svec_type' % pre not in a:
                ref += ['-%svec_type' % pre, 'cuda']
                ell += ['-%svec_type' % pre, 'cuda']
    # MATELLWARP, like AIJCUSPARSE (MatBindToCPU_SeqAIJCUSPARSE), does not use SeqAIJ's I-node routines, and
    # I-node SOR is a different computation: the reference is AIJ without I-nodes (no-op for AIJCUSPARSE)
    ref += ['-mat_no_inode']
    ell += ['-mat_no_inode']
    ell += ['-dll_append', lib]
    if args.mode == 'cpu':
        ell += ['-mat_ellwarp_backend', 'host']
    return [exe] + ref, [exe] + ell


# ---- building -------------------------------------------------------------------------------------------
def build_exes(cases, prefix, src, exe_dir, jobs):
    need = {}
    for c in cases:
        if 'skip' in c or 'rel' not in c:
            continue
        need.setdefault((c['reldir'], c['exe'], c['lang'], c['depends']), []).append(c)
    status = {}

    def one(key):
        reldir, exe, lang, depends = key
        d = os.path.join(exe_dir, reldir.replace('/', '_'))
        os.makedirs(d, exist_ok=True)
        sdir = os.path.join(src, reldir)
        # the example's own directory (its makefile, local headers and extra sources): PETSc's makefiles build
        # it against the installed PETSc; nothing is written into the source tree
        for f in os.listdir(sdir):
            p = os.path.join(sdir, f)
            if os.path.isfile(p) and (f == 'makefile' or f.endswith(('.h', '.hpp'))):
                shutil.copy(p, d)
        for f in [exe + lang] + depends.split():
            shutil.copy(os.path.join(sdir, f), d)
        dep_objs = [re.sub(r'\.(kokkos\.cxx|cxx|cu|c)$', '.o', f) for f in depends.split()]
        # CPPFLAGS: a few tests include private headers as <../src/...>, found through the source tree's
        # include/ (searched after the installed headers, as PETSc's gmakefile.test finds them in its tree)
        mk = ['make', '-C', d, 'PETSC_DIR=' + prefix, 'PETSC_ARCH=', 'CPPFLAGS=-I' + os.path.join(src, 'include')]
        cmd = mk + [exe]
        env = dict(os.environ, PETSC_DIR=prefix, PETSC_ARCH='')
        if dep_objs:
            # the link line PETSc's gmakefile.test uses for `depends:`: the example and its extra objects
            cmd = mk + dep_objs + [exe + '.o']
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if r.returncode == 0:
                cmd = mk + [exe, 'EXTRA_OBJS=' + ' '.join(dep_objs)]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        ok = r.returncode == 0 and os.path.exists(os.path.join(d, exe))
        with open(os.path.join(d, exe + '.build.log'), 'w') as f:
            f.write(' '.join(cmd) + '\n' + r.stdout + r.stderr)
        log('[build] %-40s %s (%.0f s)' % (reldir + '/' + exe, 'ok' if ok else 'FAILED', time.time() - t0))
        return key, ok, (r.stdout + r.stderr)[-2000:]

    # Executables of one source directory share a build directory (its makefile and headers are copied there),
    # so they are built one after another by one worker: two workers copying the makefile while the other's make
    # reads it once left make with an empty makefile, whose implicit rule compiled without PETSc's flags.
    # Different directories still build at the same time.
    groups = {}
    for key in sorted(need):
        groups.setdefault(key[0], []).append(key)

    def group(keys):
        return [one(k) for k in keys]

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for res in ex.map(group, [groups[r] for r in sorted(groups)]):
            for key, ok, msg in res:
                status[key] = (ok, msg)
    return status


# ---- comparison ---------------------------------------------------------------------------------------------
def apply_shell_filter(text, filt, cwd):
    if not filt:
        return text
    r = subprocess.run(['bash', '-c', filt], input=text, capture_output=True, text=True, cwd=cwd)
    return r.stdout


# Type-specific lines of MatView's ASCII info (-ksp_view, -snes_view, -mat_view ::ascii_info): what the storage
# of the type is, no computed result.  SeqAIJ's I-node line (reference run) and MATELLWARP's layout description
# (MatView_SeqELLWARP, MatView_MPIELLWARP: every line it prints starts with one of these), and MPIAIJ's line naming
# its MatPtAP algorithm (mpiptap.c: MATMPIELLWARP's products are MPIAIJ's, AIJCUSPARSE's are not, so only one
# of the two runs prints it on the GPU).
VIEW_LINE_RE = re.compile(r'^\s*((not )?using I-node (\(on process \d+\) )?routines(: found \d+ nodes, limit used is \d+)?\s*$'
                          r'|ELLWARP layout: |ELLWARP: not assembled yet|row length: min |padded slots \d+|column modes: '
                          r'|\d+ long rows \(over |kernel (auto|k1|k2) \(requested |backend (host|cuda)(;| \(no usable)|analyses \d+ \(pattern analysis'
                          r'|kernel variants \(|products: (scalar|blocked) layout|blocked layout: |test hook -mat_ellwarp|MATMPIELLWARP on \d+ ranks|ghost exchange: PetscSF|not assembled yet'
                          r'|\[\d+\] (rows \[|A \(diagonal\)|B \(off-diagonal\)|CUDA device )'
                          r'|using (scalable|nonscalable|allatonce|allatonce_merged) MatPtAP\(\) implementation\s*$)')


def drop_type_lines(lines):
    return [ln for ln in lines if not TYPE_LINE_RE.match(ln) and not VIEW_LINE_RE.match(ln)]


def drop_unused_ellwarp_options(lines):
    """The reference run does not load the plugin: an -mat_ellwarp_*/-dll_append option is reported unused there only."""
    return [ln for ln in lines if not re.match(r'^Option left: name:-(mat_ellwarp_\w+|dll_append)\b', ln)]


OPTION_TYPE_RE = re.compile(r'^(Option left: name:-\w*(mat|vec)_type value: )(' + TYPE_WORDS + r')(?P<src> source: .*)?$')
# a type name inside a line: PCFIELDSPLIT's view of its blocks, '(0,0) : prefix="fieldsplit_a_", type=seqaij, rows=5'
INLINE_TYPE_RE = re.compile(r'\btype=(' + TYPE_WORDS + r')(?=[,\s]|$)')


# The default factorization package of the type, in a factored matrix's view: AIJCUSPARSE's is cuSPARSE; ours is
# cuSPARSE with the cuda backend and PETSc's with the host backend (seqellwarphost.c, DefaultFactorOnDevice), while
# the CPU-mode reference (AIJ) says petsc.  GAMG's coarse solve on 2+ ranks (block Jacobi + LU on the gathered coarse
# matrix) views it: the package name is masked, not the line.
PACKAGE_RE = re.compile(r'^(\s*package used to perform factorization: )(petsc|cusparse)\s*$')


def mask_option_types(lines):
    """An unused -mat_type/-dm_mat_type/-vec_type is reported with its value, the substituted type name: the
    value is replaced by <type> (the line itself, the option's name and its being unused, stay compared); the
    default factorization package likewise (PACKAGE_RE)."""
    lines = [OPTION_TYPE_RE.sub(lambda m: m.group(1) + '<type>' + (m.group('src') or ''), ln) for ln in lines]
    lines = [INLINE_TYPE_RE.sub('type=<type>', ln) for ln in lines]
    return [PACKAGE_RE.sub(lambda m: m.group(1) + '<package>', ln) for ln in lines]


def compare_numbers(a, b, rtol, atol):
    """Token comparison: the text between numbers must be identical; integers exactly; reals within rtol/atol.
    Returns (ok, worst relative difference seen, message)."""
    worst = 0.0
    if len(a) != len(b):
        return False, worst, 'different number of lines (%d reference, %d ellwarp)' % (len(a), len(b))
    for i, (la, lb) in enumerate(zip(a, b)):
        if la == lb:
            continue
        ta, tb = NUM_RE.split(la), NUM_RE.split(lb)
        na, nb = NUM_RE.findall(la), NUM_RE.findall(lb)
        if [t.split() for t in ta] != [t.split() for t in tb] or len(na) != len(nb):
            return False, worst, 'line %d differs: %r vs %r' % (i + 1, la.strip()[:160], lb.strip()[:160])
        for x, y in zip(na, nb):
            if x == y:
                continue
            isint = re.fullmatch(r'[-+]?\d+', x) and re.fullmatch(r'[-+]?\d+', y)
            if isint:
                return False, worst, 'line %d: integer %s vs %s: %r' % (i + 1, x, y, lb.strip()[:160])
            fx, fy = float(x), float(y)
            d = abs(fx - fy)
            if d <= atol:
                continue
            rel = d / max(abs(fx), abs(fy))
            worst = max(worst, rel)
            if rel > rtol:
                return False, worst, 'line %d: %s vs %s (rel. diff %.2g > %g): %r' % (i + 1, x, y, rel, rtol, lb.strip()[:160])
    return True, worst, ''


def judge(c, d, args):
    """Compare the two outputs in case directory d; returns (result, reason)."""
    def rd(n):
        p = os.path.join(d, n)
        return open(p, errors='replace').read() if os.path.exists(p) else ''
    meta = json.loads(rd('meta.json') or '{}')
    ref_rc, ell_rc = meta.get('ref_rc'), meta.get('ell_rc')
    if ref_rc is None or ell_rc is None:
        return 'error', 'not run'
    if ref_rc in ('timeout',) or ell_rc in ('timeout',):
        who = 'reference' if ref_rc == 'timeout' else 'ellwarp'
        return ('error' if who == 'reference' else 'fail'), '%s run timed out (%s s)' % (who, meta.get('timeout'))
    ref_out, ell_out = rd('ref.out'), rd('ell.out')
    if ref_rc != 0:
        if c.get('kind') in BROAD_KINDS:
            # these kinds give whole directories AIJ through -mat_type/-dm_mat_type: a program whose reference run then
            # fails is not one for AIJ (FETI-DP needs MATIS, a test of another type, a data file not installed)
            return 'skip', 'the reference run (AIJ through the added type options) fails (exit %s): %s' % (ref_rc, first_error(ref_out + rd('ref.err')))
        return 'error', 'reference run failed (exit %s): %s' % (ref_rc, first_error(ref_out + rd('ref.err')))
    if ell_rc != 0:
        return 'fail', 'ellwarp run failed (exit %s): %s' % (ell_rc, first_error(ell_out + rd('ell.err')))
    # the fem and ksp kinds add the type options to whole directories of programs: one that fixes its matrix type in
    # code (MatLoad into MATAIJ, MatCreateSeqAIJ), or makes no matrix (explicit TS, residual-only cases), ran nothing
    # of MATELLWARP, whatever its output (its unused-option listing names our options)
    info = ''.join(open(f, errors='replace').read() for f in glob.glob(os.path.join(d, 'ell.info*')))
    no_ellwarp = meta.get('typecheck') and not re.search(r'<mat:(seq|mpi)aijellwarp>', info)
    if c.get('kind') in BROAD_KINDS and no_ellwarp:
        return 'skip', 'no MATELLWARP matrix in the ellwarp run: the program takes no -mat_type/-dm_mat_type or makes no matrix'
    # PETSc's own filter of the test (applied to both, as its harness applies it to the output)
    fr = apply_shell_filter(ref_out, c['filter'], d).splitlines()
    fe = apply_shell_filter(ell_out, c['filter'], d).splitlines()
    fr = mask_option_types(drop_unused_ellwarp_options(drop_type_lines(fr)))
    fe = mask_option_types(drop_unused_ellwarp_options(drop_type_lines(fe)))
    ok, worst, msg = compare_numbers(fr, fe, args.rtol, args.atol)
    variation = None
    extra = [k for k in (2, 3) if os.path.exists(os.path.join(d, 'ref%d.out' % k)) and meta.get('ref%d_rc' % k) == 0]
    if not ok and extra:
        # the reference run again (run_case does so when the numbers differ): some cases vary between runs of
        # PETSc itself (8 ranks on 2 cores: the order of messages, hence of sums, changes).  The ellwarp run
        # passes if it matches one of the reference runs, or the first within 3 times the references' own
        # largest relative difference; text and integers are still compared exactly
        refs = [fr] + [mask_option_types(drop_unused_ellwarp_options(drop_type_lines(apply_shell_filter(rd('ref%d.out' % k), c['filter'], d).splitlines()))) for k in extra]
        spread = 0.0
        for r in refs[1:]:
            same, w, _ = compare_numbers(fr, r, 1.0, args.atol)
            spread = max(spread, w) if same else float('inf')
        if 0 < spread < float('inf'):
            for r in refs[1:]:
                ok2, w2, _ = compare_numbers(r, fe, args.rtol, args.atol)
                if ok2:
                    ok, worst, variation = True, w2, spread
                    break
            if not ok:
                ok3, w3, _ = compare_numbers(fr, fe, max(args.rtol, 3 * spread), args.atol)
                if ok3:
                    ok, worst, variation = True, w3, spread
            if not ok:
                msg += ' (the reference varies between runs by %.1e)' % spread
    expected_note = None
    if not ok:
        # tie-breaker: PETSc's own expected output of the test (output_file, compared as its harness does, after
        # the test's filter_output).  When the ellwarp run matches it and the reference run does not, the
        # reference type is the one that is wrong (PETSc 3.26.1's MPIAIJ "backend" products reuse the first
        # operands after MatProductReplaceMats: mat/tests/ex250 on 3-4 ranks with aijcusparse)
        exp = expected_output(c, args)
        if exp is not None:
            ws = lambda lines: [' '.join(ln.split()) for ln in lines]
            fx = ws(mask_option_types(drop_unused_ellwarp_options(drop_type_lines(exp))))
            ok_e, w_e, _ = compare_numbers(fx, ws(drop_suite_unused_warning(fe)), args.rtol, args.atol)
            ok_r, _, msg_r = compare_numbers(fx, ws(fr), args.rtol, args.atol)
            if ok_e and not ok_r:
                ok, worst = True, w_e
                msg_r = msg_r.replace(' reference,', ' expected,').replace(' ellwarp)', ' in the reference run)')
                expected_note = ('matches PETSc\'s expected output %s; the reference run does not (%s): a defect of the '
                                 'reference type' % (c['output_file'] or 'file', msg_r))
    if not ok:
        left = sorted(set(re.findall(r'^\[\d+\] function name: (\S+)', ell_out, re.M)) - set(re.findall(r'^\[\d+\] function name: (\S+)', ref_out, re.M)))
        if left:  # PETSc's -checkfunctionlist (PETSC_TEST_OPTIONS) lists composed functions left on destroyed objects
            return 'fail', 'composed functions left at destroy (-checkfunctionlist): %s; %s' % (' '.join(left), msg)
        return 'fail', 'output differs: ' + msg
    # the ellwarp run must really have used MATELLWARP (its -info file of the Mat class, see run_case)
    if no_ellwarp:
        return 'fail', 'no MATELLWARP matrix was assembled in the ellwarp run (the type option does not reach a matrix)'
    stderr_ell = rd('ell.err').strip()
    note = 'identical output' if fr == fe else 'same output, reals within rtol %g (max rel. diff %.1e)' % (args.rtol, worst)
    if expected_note is not None:
        note = expected_note
    if variation is not None:
        note = 'same output within the reference\'s own run-to-run variation (three reference runs differ by up to %.1e; ellwarp: %.1e)' % (variation, worst)
    if not fr:
        note += ' (empty after filters)'
    if stderr_ell and stderr_ell != rd('ref.err').strip():
        return 'fail', 'ellwarp run wrote to stderr: ' + first_error(stderr_ell)
    return 'pass', note


SUITE_OPTIONS_RE = re.compile(r'^\s*Option left: name:-(dm_mat_type|dm_vec_type|vec_type|mat_type|mat_no_inode)\b')


def drop_suite_unused_warning(lines):
    """PETSc's unused-options warning, when every option it lists is one this suite added to the case (the type
    options, -mat_no_inode): PETSc's expected output files do not have it."""
    left = [ln for ln in lines if re.match(r'^\s*Option left: ', ln)]
    if not left or not all(SUITE_OPTIONS_RE.match(ln) for ln in left):
        return lines
    warn = re.compile(r'^\s*(WARNING! There are options you set that were not used!|WARNING! could be spelling mistake, etc!'
                      r'|There (is|are) (\d+|one) unused database options?\. (It is|They are):|Option left: )')
    return [ln for ln in lines if not warn.match(ln)]


def expected_output(c, args):
    """PETSc's expected output of case c (its output_file, or the harness's default name), as lines after the
    test's filter_output; None if there is none."""
    name = c.get('output_file') or ''
    if not name:  # the harness's default: output/<exe>_<test>.out (a {{...}separate output} loop is in <test>)
        name = os.path.join('output', c['name'].split('-', 1)[1].split('+', 1)[0] + '.out')
    path = os.path.join(args.petsc_src, c['reldir'], name)
    if not os.path.exists(path):
        return None
    text = open(path, errors='replace').read()
    if c.get('filter_output'):
        text = apply_shell_filter(text, c['filter_output'], os.path.dirname(path))
    return text.splitlines()


def first_error(text):
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if re.search(r'error|Error|ERROR|Signal|SEGV|Aborted|killed', ln) and 'PETSC ERROR: -------' not in ln:
            m = re.search(r'\[0\]PETSC ERROR: (.*)', ln)
            s = (m.group(1) if m else ln).strip()
            if s and not s.startswith('#') and 'See https://petsc.org' not in s:
                # PETSc's error class ("Invalid argument") is followed by the message itself: both are kept
                if m and i + 1 < len(lines):
                    n = re.search(r'\[0\]PETSC ERROR: (.*)', lines[i + 1])
                    if n and n.group(1).strip() and not n.group(1).startswith(('#', 'WARNING!', 'See https://petsc.org', '-----')):
                        s += ': ' + n.group(1).strip()
                return s[:240]
    return (text.strip().splitlines() or ['(no output)'])[-1][:200]


def run_case(c, args, src, lib, exe_dir, outdir, mpiexec):
    d = os.path.join(outdir, 'cases', c['name'])
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    sdir = os.path.join(src, c['reldir'])
    for f in c['localrunfiles'].split():
        p = os.path.join(sdir, f)
        if os.path.exists(p):
            os.symlink(p, os.path.join(d, os.path.basename(f)))
    ref, ell = command_lines(c, args, src, lib, exe_dir)
    # PetscInfo() names the type of the object it reports on ("<mat:seqaijellwarp>"): the ellwarp run's -info
    # output of the Mat class goes to files of its own (not to stdout) and must show a MATELLWARP matrix (it
    # logs its backend at creation, each pattern analysis, ...); skipped for the few tests that use -info themselves
    typecheck = '-info' not in ell[1:]
    if typecheck:
        ell += ['-info', '%s:mat' % os.path.join(d, 'ell.info')]
    launcher = shlex.split(mpiexec) + ['-n', str(c['nsize'])]
    env = dict(os.environ)
    env['PETSC_OPTIONS'] = (env.get('PETSC_OPTIONS', '') + ' -check_pointer_intensity 0 -error_output_stdout -malloc_dump ' +
                            args.test_options).strip()
    for kv in shlex.split(c['env']):
        if '=' in kv:
            k, v = kv.split('=', 1)
            env[k] = v
    tmo = int(args.timeout * c['timeoutfactor'])
    meta = {'ref': ' '.join(shlex.quote(w) for w in launcher + ref), 'ell': ' '.join(shlex.quote(w) for w in launcher + ell),
            'timeout': tmo, 'typecheck': typecheck, 'PETSC_OPTIONS': env['PETSC_OPTIONS']}
    for tag, argv in (('ref', ref), ('ell', ell)):
        t0 = time.time()
        with open(os.path.join(d, tag + '.out'), 'w') as fo, open(os.path.join(d, tag + '.err'), 'w') as fe:
            p = subprocess.Popen(launcher + argv, stdout=fo, stderr=fe, cwd=d, env=env, start_new_session=True)
            try:
                rc = p.wait(timeout=tmo)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()
                rc = 'timeout'
        meta[tag + '_rc'] = rc
        meta[tag + '_s'] = round(time.time() - t0, 2)
    with open(os.path.join(d, 'meta.json'), 'w') as f:
        json.dump(meta, f, indent=1)
    res = judge(c, d, args)
    if res[0] == 'fail' and res[1].startswith('output differs: line') and meta['ref_rc'] == 0:
        # numbers differ: run the reference twice more, to tell its own run-to-run variation (see judge)
        for k in (2, 3):
            with open(os.path.join(d, 'ref%d.out' % k), 'w') as fo, open(os.path.join(d, 'ref%d.err' % k), 'w') as fe:
                p = subprocess.Popen(launcher + ref, stdout=fo, stderr=fe, cwd=d, env=env, start_new_session=True)
                try:
                    meta['ref%d_rc' % k] = p.wait(timeout=tmo)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, 9)
                    p.wait()
                    meta['ref%d_rc' % k] = 'timeout'
        with open(os.path.join(d, 'meta.json'), 'w') as f:
            json.dump(meta, f, indent=1)
        res = judge(c, d, args)
    return res


# ---- expected failures ----------------------------------------------------------------------------------
def read_failures(paths):
    """Lines: CASE-REGEX "reason phrase"   (# comments).  A listed case must fail with the phrase in its reason.
    paths: the --failures-file options, in order (gpu mode: the CPU file, then expected-failures-gpu.txt)."""
    out = []
    for path in paths or []:
        out += read_failures_file(path)
    return out


def read_failures_file(path):
    out = []
    for ln in open(path):
        ln = ln.strip()
        if not ln or ln.startswith('#'):
            continue
        m = re.match(r'(\S+)\s+"([^"]+)"\s*(#.*)?$', ln)
        if not m:
            sys.exit('%s: bad line (want: CASE-REGEX "reason phrase"): %s' % (path, ln))
        out.append((re.compile(m.group(1) + '$'), m.group(2)))
    return out


def expected(name, reason, failures):
    for rx, phrase in failures:
        if rx.match(name):
            return phrase in reason, phrase
    return None, None


# ---- main -----------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--mode', choices=['cpu', 'gpu'], default='cpu')
    ap.add_argument('--build-only', action='store_true', help='only compile the needed PETSc examples into --exe-dir')
    ap.add_argument('--run-only', action='store_true', help='do not compile: use the executables in --exe-dir')
    ap.add_argument('--exe-dir', help='where the examples are built (default OUTDIR/exe)')
    ap.add_argument('--subset', choices=['all', 'ci'], default='all', help='ci: the cases listed in ci-cases.txt')
    ap.add_argument('--filter', help='only cases whose name matches this regex (search)')
    ap.add_argument('--kinds', help='which selections (README: "Which cases"): cusparse, gamg, fem, ksp (default: all four with '
                    '--mode cpu; cusparse,gamg with --mode gpu, whose device calls are limited to minutes)')
    ap.add_argument('--jobs', type=int, default=1, help='cases (and builds) run at the same time')
    ap.add_argument('--timeout', type=float, default=120, help='seconds per run (times the test\'s timeoutfactor)')
    ap.add_argument('-o', '--outdir', default='petsc-suite-out')
    ap.add_argument('--failures-file', action='append', help='expected failures: CASE-REGEX "reason phrase" per line (may be given more than once)')
    ap.add_argument('--recompare', action='store_true', help='judge the outputs already in OUTDIR again, run nothing')
    ap.add_argument('--lib', help='libpetscellwarp.so (default: build/lib/libpetscellwarp.so of this repository)')
    ap.add_argument('--petsc-prefix', help='installed PETSc (default $PETSC_DIR from scripts/env.sh)')
    ap.add_argument('--petsc-src', help='PETSc source tree (default <prefix>/share/petsc-src)')
    ap.add_argument('--rtol', type=float, default=1e-5, help='relative tolerance for reals (integers are exact)')
    ap.add_argument('--atol', type=float, default=1e-11, help='reals closer than this are equal (converged residuals)')
    ap.add_argument('--list', action='store_true', help='print the cases and exit')
    ap.add_argument('--note', default='', help='a line for the head of results.md (which library build, which host)')
    ap.add_argument('--mpiexec', help='launcher (default: PETSc\'s MPIEXEC)')
    args = ap.parse_args()

    prefix, src, arch = find_trees(args)
    args.petsc_src = src  # judge() reads expected output files from the tree
    outdir = os.path.abspath(args.outdir)
    os.makedirs(outdir, exist_ok=True)
    testparse, gen = petsc_harness(src, arch, os.path.join(outdir, '.gmakegentest'))
    args.test_options = gen.conf.get('PETSC_TEST_OPTIONS', '')
    mpiexec = args.mpiexec or gen.conf.get('MPIEXEC', 'mpiexec')
    exe_dir = os.path.abspath(args.exe_dir or os.path.join(outdir, 'exe'))
    lib = os.path.abspath(args.lib or os.path.join(REPO, 'build', 'lib', 'libpetscellwarp.so'))

    cases = collect_cases(src, testparse, gen)
    if args.mode == 'cpu':
        for c in cases:
            if c.get('lang') == '.cu' and 'skip' not in c:
                # a .cu example launches its own CUDA kernels (thrust, <<<>>>): it cannot run without a device
                c['skip'] = 'unmet requirement of mode cpu: the example runs its own CUDA kernels (needs a device)'
    if args.subset == 'ci':
        want = [ln.split('#')[0].strip() for ln in open(os.path.join(HERE, 'ci-cases.txt'))]
        want = [w for w in want if w]
        byname = {c['name']: c for c in cases}
        missing = [w for w in want if w not in byname]
        if missing:
            sys.exit('ci-cases.txt names cases that do not exist: %s' % ', '.join(missing))
        cases = [byname[w] for w in want]
    if not args.kinds:
        args.kinds = ','.join(KINDS if args.mode == 'cpu' else ('cusparse', 'gamg'))
    kinds = set(args.kinds.split(','))
    if not kinds <= set(KINDS):
        sys.exit('run_petsc_suite.py: --kinds takes %s (got %s)' % (', '.join(KINDS), args.kinds))
    cases = [c for c in cases if c.get('kind', 'cusparse') in kinds]
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, c['name'])]
    if args.list:
        for c in cases:
            print('%-70s np%-2d %-5s %s%s' % (c['name'], c.get('nsize', 0), c.get('kind', ''), c.get('args', ''),
                                            ('   [skip: %s]' % c['skip']) if 'skip' in c else ''))
        print('%d cases' % len(cases))
        return 0

    if not args.run_only and not args.recompare:
        st = build_exes(cases, prefix, src, exe_dir, args.jobs)
        for c in cases:
            k = (c.get('reldir'), c.get('exe'), c.get('lang'), c.get('depends'))
            if k in st and not st[k][0]:
                c['build_error'] = st[k][1]
        if args.build_only:
            bad = [k for k, v in st.items() if not v[0]]
            log('[build] %d executables in %s, %d failed' % (len(st), exe_dir, len(bad)))
            return 1 if bad else 0
    if args.mode == 'cpu' or args.recompare:
        pass
    if not args.recompare and not os.path.exists(lib):
        sys.exit('run_petsc_suite.py: %s not found (build the library, or pass --lib)' % lib)

    failures = read_failures(args.failures_file)
    results = {}

    def work(c):
        if 'result' in c:
            return c, c['result'], c['reason']
        if 'skip' in c:
            return c, 'skip', c['skip']
        if c.get('build_error'):
            return c, 'error', 'build failed: ' + first_error(c['build_error'])
        exe = os.path.join(exe_dir, c['reldir'].replace('/', '_'), c['exe'])
        if args.recompare:
            d = os.path.join(outdir, 'cases', c['name'])
            if not os.path.exists(os.path.join(d, 'meta.json')):
                return c, 'error', 'not run'
            return (c,) + judge(c, d, args)
        if not os.path.exists(exe):
            return c, 'error', 'executable missing: %s' % exe
        t0 = time.time()
        r = run_case(c, args, src, lib, exe_dir, outdir, mpiexec)
        log('[run] %-70s %-5s %5.1f s  %s' % (c['name'], r[0], time.time() - t0, r[1][:120]))
        return (c,) + r

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for c, res, reason in ex.map(work, cases):
            results[c['name']] = (res, reason)

    # table
    rows = []
    unexpected = []
    for c in cases:
        res, reason = results[c['name']]
        exp, phrase = expected(c['name'], reason, failures)
        if res in ('fail', 'error'):
            if exp:
                res_shown = res + ' (expected)'
            else:
                res_shown = res
                unexpected.append(c['name'])
        else:
            res_shown = res
            if exp is not None:
                reason += ' [listed as an expected failure ("%s"): passed this time]' % phrase
        rows.append((c['name'], str(c.get('nsize', '')), res_shown, reason.replace('|', '/').replace('\n', ' ')))
    tag = 'ci' if args.subset == 'ci' else 'all'
    with open(os.path.join(outdir, 'results.tsv'), 'w') as f:
        f.write('case\tnp\tresult\treason\n')
        for r in rows:
            f.write('\t'.join(x.replace('\t', ' ') for x in r) + '\n')
    counts = {}
    for r in rows:
        k = r[2].split()[0] + (' (expected)' if '(expected)' in r[2] else '')
        counts[k] = counts.get(k, 0) + 1
    with open(os.path.join(outdir, 'results.md'), 'w') as f:
        f.write('# PETSc test suite with MATELLWARP (mode %s, subset %s)\n\n' % (args.mode, tag))
        f.write('PETSc source: %s  \nlibrary: %s  \n' % (src, lib))
        if args.note:
            f.write('%s  \n' % args.note)
        f.write('Command: `run_petsc_suite.py %s`  \n' % ' '.join(shlex.quote(a) for a in sys.argv[1:]))
        f.write('Summary: %s  \n\n' % ', '.join('%s %d' % kv for kv in sorted(counts.items())))
        f.write('| case | np | result | reason |\n|---|---|---|---|\n')
        for r in rows:
            f.write('| %s | %s | %s | %s |\n' % r)
    log('[suite] %s -> %s/results.{md,tsv}' % (', '.join('%s %d' % kv for kv in sorted(counts.items())), outdir))
    for n in unexpected:
        log('[suite] UNEXPECTED: %s: %s' % (n, results[n][1]))
    # an expected-failure entry that matches no case is stale
    for rx, phrase in failures:
        if not any(rx.match(c['name']) for c in cases) and args.subset == 'all' and not args.filter:
            log('[suite] note: expected-failure pattern %s matches no case' % rx.pattern)
    return 1 if unexpected else 0


if __name__ == '__main__':
    sys.exit(main())
