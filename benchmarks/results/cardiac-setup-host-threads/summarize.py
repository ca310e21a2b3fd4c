# summarize.py base new: per phase, the minimum (and every value) over TAG_r*.log in the current directory
import re,glob,sys
ev=["CardiacMeshRead","CardiacMeshRefine","CardiacRenumber","CardiacFibres","CardiacToDMPlex","DMPlexBuFrCeLi","DMPlexSymmetrize","DMPlexStratify","CardiacSection","DMAsmSetUp","DMAsmElementMap","DMAsmPattern","DMAsmResPlan","CardiacVectors","CardiacOutput"]
ph=["setup","mesh","DM","assembler","matrix","rest"]
def parse(f):
    d={}
    for l in open(f):
        m=re.match(r"cardiac: setup ([0-9.]+) s = mesh ([0-9.]+) \+ DM ([0-9.]+) \+ device ([0-9.]+) \+ assembler ([0-9.]+) \+ matrix ([0-9.]+) \+ rest ([0-9.]+)",l)
        if m:
            v=list(map(float,m.groups())); d.update(dict(zip(["setup","mesh","DM","device","assembler","matrix","rest"],v)))
        w=l.split()
        if w and w[0] in ev and len(w)>4:
            try: d[w[0]]=float(w[3])
            except: pass
        m=re.search(r"process wall ([0-9.]+)",l)
        if m: d["wall"]=float(m.group(1))
        m=re.search(r"load-before ([0-9.]+)",l)
        if m: d["load"]=float(m.group(1))
        m=re.search(r"results and output ([0-9.]+)",l)
        if m: d["output"]=float(m.group(1))
    return d
runs={}
for tag in sys.argv[1:]:
    fs=sorted(glob.glob(f"{tag}_r*.log"))
    runs[tag]=[parse(f) for f in fs]
keys=ph+ev+["wall"]
print("%-18s"%"phase"+"".join("%-34s"%t for t in runs))
for k in keys:
    row="%-18s"%k
    for t,rs in runs.items():
        vals=[r[k] for r in rs if k in r]
        row+="%-34s"%(("min %.3f  (%s)"%(min(vals)," ".join("%.2f"%v for v in vals))) if vals else "-")
    print(row)
