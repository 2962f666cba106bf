"""Random wrong-edit hunt: real files from the built corpus cache, random edits diffed by git,
the patch damaged (shifted numbers, no numbers, a dropped context line, whitespace, reordered
hunks...), the target optionally drifted, and the tool's result compared with git merge-file.

    GIT_LLM_APPLY_BIN=target/debug/git-llm-apply python3 scripts/fuzz-wrong.py START COUNT WORKDIR

FUZZ_TABIFY=1 indents each file with tabs first (its smallest indentation made one tab), and
adds a damage that writes every tab of the patch's lines as 2, 4 or 8 spaces; unset, the seeds
give the cases they always gave.

FUZZ_HALLUC=1 adds a damage that changes one word of one context line (a misremembered
identifier, as the corpus's hallucinated-context cases have); unset, the seeds are unchanged.
FUZZ_HALLUC=2 changes that word in more ways: a letter more or less, its case style switched
(snake_case and camelCase), a letter inside it replaced, or the whole word replaced by another
name of the patch; and half the time, where the file has a twin of a context word (`load` and
`loads`), the word is written as its twin, so that the context names another thing the file has.

FUZZ_DIALECT=sr (aider SEARCH/REPLACE blocks), codex (a `*** Begin Patch` patch) or mixed (each
case one of unified, sr, codex) re-expresses the damaged patch in that dialect; unset, it stays
a unified diff. The same damage then reaches the dialect's parser and the same planner.

Prints one JSON line per case that is not plainly right (WRONG, DAMAGED, PANIC...), keeping its
directory in WORKDIR, and a tally at the end. A WRONG here is a lead, not a verdict: some
damage makes the intended place truly unknowable. Needs the corpus cache built by
../shared/corpus/make_corpus.py.
"""
import os, sys, random, subprocess, json, re, tempfile, shutil, hashlib
TOOL=os.path.abspath(os.environ.get('GIT_LLM_APPLY_BIN', 'target/debug/git-llm-apply'))
CORPUS=os.path.join(os.environ.get('XDG_CACHE_HOME', os.path.expanduser('~/.cache')), 'git-llm-apply-corpus', 'cases')
def files():
    seen=set(); out=[]
    for root,_,fs in os.walk(CORPUS):
        if '/base' not in root: continue
        for f in fs:
            p=os.path.join(root,f)
            b=open(p,'rb').read()
            h=hashlib.md5(b).hexdigest()
            if h in seen: continue
            seen.add(h)
            try: t=b.decode()
            except: continue
            if '\r' in t or len(t.splitlines())<15: continue
            out.append((p,t))
    return out
FILES=files()
TABIFY=bool(os.environ.get('FUZZ_TABIFY'))
HALLUC=os.environ.get('FUZZ_HALLUC', '')
HALLUC=2 if HALLUC=='2' else bool(HALLUC)
def tabify(text):
    """The file indented with tabs: each whole unit of leading spaces (the file's smallest
    indentation) made a tab, what is left kept as spaces (alignment)."""
    ls=text.split('\n')
    depths=[len(l)-len(l.lstrip(' ')) for l in ls if l.strip()]
    unit=min([d for d in depths if d>0] or [4])
    def one(l):
        n=len(l)-len(l.lstrip(' '))
        return '\t'*(n//unit)+' '*(n%unit)+l[n:]
    return '\n'.join(one(l) for l in ls)
def run(cmd,cwd,inp=None):
    return subprocess.run(cmd,cwd=cwd,input=inp,capture_output=True)
def lines(t): return t.splitlines(keepends=True)

def random_edit(rng, L):
    """returns new lines and list of edited old-line ranges"""
    L=list(L); n=len(L)
    k=rng.choice([1,1,1,2,2,3])
    # prefer lines that repeat
    cnt={}
    for l in L: cnt[l]=cnt.get(l,0)+1
    rep=[i for i,l in enumerate(L) if cnt[l]>1 and l.strip()]
    pos=sorted(set(rng.choice(rep) if rep and rng.random()<0.5 else rng.randrange(n) for _ in range(k)),reverse=True)
    spans=[]
    for p in pos:
        kind=rng.choice(['replace','insert','delete','insert','replace','dup'])
        ind=re.match(r'[ \t]*',L[p]).group(0)
        newl=[ind+rng.choice(['log("x%d")'%rng.randrange(99),'value = compute(%d)'%rng.randrange(99),'return None','pass','','# note %d'%rng.randrange(99)])+'\n' for _ in range(rng.choice([1,1,2,3]))]
        if kind=='replace':
            m=rng.choice([1,1,2]); L[p:p+m]=newl; spans.append((p,p+m))
        elif kind=='insert':
            L[p:p]=newl; spans.append((p,p))
        elif kind=='delete':
            m=rng.choice([1,1,2,3]); del L[p:p+m]; spans.append((p,p+m))
        else:
            m=rng.choice([1,2,3]); L[p:p]=L[p:p+m]; spans.append((p,p))
    return L, spans

def drift(rng, L, spans):
    L=list(L); n=len(L)
    far=[i for i in range(n) if all(abs(i-a)>12 and abs(i-b)>12 for a,b in spans)]
    if not far: return None, None
    p=rng.choice(far)
    kind=rng.choice(['ins_top','ins','del','mod','copy'])
    if kind=='ins_top':
        L[0:0]=['# header %d\n'%i for i in range(rng.randrange(1,30))]
    elif kind=='ins':
        L[p:p]=['x_%d = %d\n'%(i,i) for i in range(rng.randrange(1,8))]
    elif kind=='del':
        del L[p:p+rng.randrange(1,4)]
    elif kind=='mod':
        L[p]=L[p].rstrip('\n')+'  # drift\n'
    else:
        kind='copy'
        # copy a block around an edited span to a far place (creates a duplicate)
        a,b=rng.choice(spans); s=max(0,a-4); e=min(n,b+4)
        L[p:p]=L[s:e]
    return L, kind

TARGET_WORDS=set()

def twins_of(word):
    """The target file's words a letter longer or shorter than `word` (or a plural of it)."""
    out=[]
    for t in (word+'s', word+'es', word[:-1]):
        if t!=word and t in TARGET_WORDS: out.append(t)
    return out

def misremember(rng, word, text):
    """FUZZ_HALLUC=2: `word` written another way (see the header)."""
    way=rng.choice(['more','less','style','letter','sibling'])
    if way=='more': return word+rng.choice('se')
    if way=='less': return word[:-1]
    if way=='style':
        if '_' in word.strip('_'):
            head,*rest=word.split('_')
            return head+''.join(r[:1].upper()+r[1:] for r in rest)
        return re.sub(r'(?<=[a-z])([A-Z])', lambda m: '_'+m.group(1).lower(), word) if re.search(r'[a-z][A-Z]', word) else word.upper()
    if way=='letter':
        i=rng.randrange(1,len(word)-1)
        return word[:i]+rng.choice([c for c in 'abcdefghijklmnopqrstuvwxyz' if c!=word[i]])+word[i+1:]
    names=sorted(set(re.findall(r'[A-Za-z_]{4,}', text))-{word})
    return rng.choice(names) if names else word+'s'

def damage(rng, patch):
    pl=patch.split('\n')
    kinds=[]
    r=rng.random()
    def hunkidx(): return [i for i,l in enumerate(pl) if l.startswith('@@')]
    choices=['none','shift','nonum','dropctx','ws','blank','reorder','indent','shift','dropctx',
             'cut','cut']
    # Under FUZZ_TABIFY (files indented with tabs) a third of the cases write the tabs as spaces.
    if TABIFY: choices+=['tabs']*6
    # Under FUZZ_HALLUC a third of the cases get a context line the model misremembered: one
    # word of it changed (an identifier renamed), as the corpus's hallucinated-context cases.
    if HALLUC: choices+=['halluc']*6
    choice=rng.choice(choices)
    if choice=='shift':
        d=rng.choice([-30,-10,-5,-2,2,5,10,30,100])
        def f(m):
            a=max(1,int(m.group(1))+d); c=max(1,int(m.group(3))+d)
            return '@@ -%d%s +%d%s @@'%(a,m.group(2) or '',c,m.group(4) or '')
        pl=[re.sub(r'^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@',f,l) if l.startswith('@@') else l for l in pl]
    elif choice=='nonum':
        pl=[re.sub(r'^@@ [^@]* @@','@@ @@',l) if l.startswith('@@') else l for l in pl]
    elif choice=='dropctx':
        ctx=[i for i,l in enumerate(pl) if l.startswith(' ')]
        if ctx: del pl[rng.choice(ctx)]
    elif choice=='ws':
        ctx=[i for i,l in enumerate(pl) if l.startswith(' ') or l.startswith('-')]
        for i in rng.sample(ctx,min(len(ctx),3)):
            pl[i]=pl[i]+'  ' if rng.random()<0.5 else pl[i][0]+pl[i][1:].lstrip()
    elif choice=='blank':
        pl=[('' if l==' ' else l) for l in pl]
    elif choice=='reorder':
        hs=hunkidx()
        if len(hs)>1:
            head=pl[:hs[0]]; hunks=[]
            for j,h in enumerate(hs):
                e=hs[j+1] if j+1<len(hs) else len(pl)
                hunks.append(pl[h:e])
            tail=[]
            if hunks[-1] and hunks[-1][-1]=='': hunks[-1]=hunks[-1][:-1]; tail=['']
            rng.shuffle(hunks)
            pl=head+[x for h in hunks for x in h]+tail
    elif choice=='cut':
        # Not damage: the shapes models write. Per hunk, the trailing or the leading context
        # dropped (or kept), counts kept right; a third of the time without numbers.
        hs=hunkidx()+[len(pl)]
        nonum=rng.random()<0.33
        out=pl[:hs[0]]
        for j in range(len(hs)-1):
            head=pl[hs[j]]; body=pl[hs[j]+1:hs[j+1]]
            tail=[]
            while body and not body[-1].startswith((' ','-','+','\\')):
                tail.insert(0,body.pop())
            side=rng.choice(['trail','lead','trail',None])
            m=re.match(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$',head)
            if side and m and not any(l.startswith('\\') for l in body):
                os_,ns_=int(m.group(1)),int(m.group(3))
                if side=='trail':
                    while body and body[-1].startswith(' '): body.pop()
                else:
                    while body and body[0].startswith(' '):
                        body.pop(0); os_+=1; ns_+=1
                oc=sum(1 for l in body if l[:1] in ' -'); nc=sum(1 for l in body if l[:1] in ' +')
                head='@@ -%d,%d +%d,%d @@%s'%(os_ if oc else os_-1,oc,ns_ if nc else ns_-1,nc,m.group(5))
            if nonum: head=re.sub(r'^@@ [^@]* @@','@@ @@',head)
            out+=[head]+body+tail
        pl=out
    elif choice=='halluc':
        ctx=[i for i,l in enumerate(pl) if l.startswith(' ') and re.search(r'[A-Za-z_]{4,}',l)]
        # FUZZ_HALLUC=2: half the time, a word the file has a twin of (a letter more or less)
        # written as that twin: the context then names another thing the file has.
        twins=[(i,w,t) for i in ctx for w in re.finditer(r'[A-Za-z_]{4,}',pl[i]) for t in twins_of(w.group(0))] if HALLUC==2 else []
        if twins and rng.random()<0.5:
            i,w,t=rng.choice(twins)
            pl[i]=pl[i][:w.start()]+t+pl[i][w.end():]
        elif ctx:
            i=rng.choice(ctx)
            words=list(re.finditer(r'[A-Za-z_]{4,}',pl[i]))
            w=rng.choice(words)
            new=w.group(0)+'s' if rng.random()<0.5 else w.group(0)[:-1]
            if HALLUC==2:
                new=misremember(rng, w.group(0), patch)
            pl[i]=pl[i][:w.start()]+new+pl[i][w.end():]
    elif choice=='tabs':
        # Every leading tab of every body line written as the same number of spaces.
        w=rng.choice([2,4,8])
        isbody=lambda l: l[:1] in (' ','-','+') and not l.startswith('---') and not l.startswith('+++')
        def spaces(t):
            n=len(t)-len(t.lstrip('\t'))
            return ' '*(w*n)+t[n:]
        pl=[l[0]+spaces(l[1:]) if isbody(l) else l for l in pl]
    elif choice=='indent':
        hs=hunkidx()+[len(pl)]
        isbody=lambda l: l[:1] in ' -+' and not l.startswith('---') and not l.startswith('+++') and l[1:].strip()
        for j in range(len(hs)-1):
            seg=range(hs[j]+1,hs[j+1])
            old=[pl[i] for i in seg if isbody(pl[i]) and pl[i][0] in ' -']
            body=[pl[i] for i in seg if isbody(pl[i])]
            if not old: continue
            ind=min(len(l[1:])-len(l[1:].lstrip(' ')) for l in body)
            if ind>0:
                for i in seg:
                    if isbody(pl[i]): pl[i]=pl[i][0]+pl[i][1+ind:]
    return '\n'.join(pl), choice

def hunks_of(patch):
    """(section, body lines) for each hunk of a unified patch, as damaged."""
    out=[]; cur=None
    for l in patch.split('\n'):
        if l.startswith('@@'):
            m=re.match(r'^@@[^@]*@@ ?(.*)$',l)
            cur=(m.group(1) if m else '',[]); out.append(cur)
        elif cur is not None and (l[:1] in (' ','-','+') or l=='') and not l.startswith('---') and not l.startswith('+++'):
            cur[1].append(l)
        elif cur is not None and l.startswith('\\'):
            continue
        else:
            cur=None
    for _,body in out:
        while body and body[-1]=='': body.pop()
    return out

def in_dialect(patch, name, dialect):
    hs=hunks_of(patch)
    if dialect=='sr':
        blocks=[]
        for _,body in hs:
            old=[l[1:] for l in body if l[:1]!='+']
            new=[l[1:] for l in body if l[:1]!='-']
            # A SEARCH of blank lines only means "append" in aider's dialect: not this hunk.
            if not ''.join(old).strip(): return None
            blocks.append('\n'.join([name,'<<<<<<< SEARCH']+old+['=======']+new+['>>>>>>> REPLACE']))
        return '\n\n'.join(blocks)+'\n'
    out=['*** Begin Patch','*** Update File: '+name]
    for section,body in hs:
        out.append(('@@ '+section.strip()) if section.strip() else '@@')
        out.extend(l if l else ' ' for l in body)
    out.append('*** End Patch')
    return '\n'.join(out)+'\n'

def state(d):
    out={}
    for root,_,fs in os.walk(d):
        if '/.git' in root: continue
        for f in fs:
            p=os.path.join(root,f)
            out[os.path.relpath(p,d)]=open(p,'rb').read()
    idx=run(['git','write-tree'],d).stdout
    head=run(['git','rev-parse','HEAD'],d).stdout
    return out,idx,head

def blanked(b):
    """The bytes with every whitespace-only line made empty."""
    if b is None: return None
    return b''.join(l if l.strip() else l[len(l.rstrip(b'\r\n')):] for l in b.splitlines(True))

def one(seed, workdir):
    rng=random.Random(seed)
    path,text=rng.choice(FILES)
    if TABIFY: text=tabify(text)
    name='src/'+os.path.basename(path)
    base=lines(text)
    if rng.random()<0.15 and text.endswith('\n'): base[-1]=base[-1].rstrip('\n')
    new,spans=random_edit(rng,base)
    if not new or new==base: return None
    if not new[-1].endswith('\n') and base[-1].endswith('\n'): new[-1]+='\n'
    target=base
    dkind='none'
    if rng.random()<0.6:
        t,k2=drift(rng,base,spans)
        if t is not None: target=t; dkind=k2
    crlf = rng.random()<0.1
    enc=lambda L: ''.join(L).replace('\n','\r\n') if crlf else ''.join(L)
    d=tempfile.mkdtemp(dir=workdir)
    try:
        os.makedirs(d+'/a/src'); os.makedirs(d+'/b/src')
        open(d+'/a/'+name,'w',newline='').write(enc(base)); open(d+'/b/'+name,'w',newline='').write(enc(new))
        ctxU=rng.choice([3,3,3,1,2,5])
        p=run(['git','diff','--no-index','-U%d'%ctxU,'a/'+name,'b/'+name],d).stdout.decode()
        p=p.replace('a/a/','a/').replace('b/b/','b/')
        p='\n'.join(l for l in p.split('\n') if not l.startswith('index '))
        global TARGET_WORDS
        TARGET_WORDS=set(re.findall(r'[A-Za-z_]{4,}', ''.join(target)))
        patch,dmg=damage(rng,p)
        dialect=os.environ.get('FUZZ_DIALECT','unified')
        if dialect=='mixed': dialect=rng.choice(['unified','sr','codex'])
        if dialect!='unified':
            converted=in_dialect(patch,name,dialect)
            if converted is None: dialect='unified'
            else: patch=converted
        # expected via merge-file
        open(d+'/T','w',newline='').write(enc(target)); open(d+'/B','w',newline='').write(enc(base)); open(d+'/N','w',newline='').write(enc(new))
        if target is base:
            expected=enc(new).encode(); clean=True
        else:
            mr=run(['git','merge-file','-p','T','B','N'],d)
            expected=mr.stdout; clean=(mr.returncode==0)
        r=d+'/repo'; os.makedirs(r+'/src')
        run(['git','init','-q'],r)
        commit_base = rng.random()<0.3
        open(r+'/'+name,'w',newline='').write(enc(base if commit_base else target))
        run(['git','add','-A'],r); run(['git','-c','user.email=a@b','-c','user.name=n','commit','-qm','x'],r)
        open(r+'/'+name,'w',newline='').write(enc(target))
        before=state(r)
        open(d+'/p.diff','w',newline='').write(patch)
        res=run([TOOL,'--json','--no-snapshot',d+'/p.diff'],r)
        after=state(r)
        got=after[0].get(name)
        rc=res.returncode
        verdict='ok'
        if rc in (0,3):
            if clean and got!=expected: verdict='WRONG' if not (dkind=='copy' and dmg=='shift') else 'copy-shift'
            # A dedented hunk says nothing of the indentation of its whitespace-only lines (the
            # damage leaves them as they were): a result that differs from the expected one only
            # there is the blank lines' whitespace, not an edit in the wrong place.
            if verdict=='WRONG' and dmg=='indent' and blanked(got)==blanked(expected): verdict='indent-blank-ws'
            if not clean: verdict='applied-on-conflict'
        elif rc in (1,2):
            if after!=before: verdict='DAMAGED'
        else: verdict='CRASH'
        if b'panicked' in res.stderr: verdict='PANIC'
        return dict(seed=seed,verdict=verdict,rc=rc,dmg=dmg,dialect=dialect,drift=dkind,crlf=crlf,U=ctxU,file=path,commit_base=commit_base,dir=d,clean=clean)
    finally:
        pass

if __name__=='__main__':
    start=int(sys.argv[1]); n=int(sys.argv[2]); wd=sys.argv[3]
    os.makedirs(wd,exist_ok=True)
    from collections import Counter
    c=Counter()
    for s in range(start,start+n):
        try: r=one(s,wd)
        except Exception as e:
            print('ERR',s,e,flush=True); continue
        if r is None: continue
        c[(r['verdict'],r['rc'])]+=1
        if r['verdict'] in ('ok',) or (r['verdict']=='applied-on-conflict'):
            shutil.rmtree(r['dir'],ignore_errors=True)
            if r['verdict']=='ok': continue
        print(json.dumps(r),flush=True)
    print(dict(c),flush=True)
