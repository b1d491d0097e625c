#!/usr/bin/env python3
"""The import circles among the modules of crates/core (its top-level files and folders):
the strongly connected components of `crate::MODULE` references outside tests and comments.

    python3 scripts/core-import-circles.py   # from the repository root
"""
import re,os,glob,sys
root='crates/core/src'
mods={}; where={}
for f in glob.glob(root+'/**/*.rs',recursive=True):
    rel=os.path.relpath(f,root)[:-3]
    top=rel.split('/')[0]
    if top=='lib': continue
    mods.setdefault(top,set())
    txt=open(f).read()
    i=txt.find('#[cfg(test)]')
    if i>=0: txt=txt[:i]
    code='\n'.join(l for l in txt.split('\n') if not l.strip().startswith('//'))
    for m in re.finditer(r'crate::(\w+)',code):
        t=m.group(1)
        if t!=top and t[0].islower():
            mods[top].add(t); where.setdefault((top,t),set()).add(rel)
sys.setrecursionlimit(10000)
index={};low={};st=[];on=set();res=[];c=[0]
def sc(v):
    index[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
    for w in mods.get(v,()):
        if w not in mods: continue
        if w not in index: sc(w); low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],index[w])
    if low[v]==index[v]:
        comp=[]
        while True:
            w=st.pop();on.discard(w);comp.append(w)
            if w==v: break
        res.append(comp)
for v in mods:
    if v not in index: sc(v)
for r in res:
    if len(r)>1:
        print(len(r), sorted(r))
        rs=set(r)
        for a in sorted(r):
            print('  ',a,'->',sorted(x for x in mods[a] if x in rs))
