"""The MCP client of scripts/bench.sh's row I (also scripts/bench-instructions.sh's):
`bench_mcp.py BIN OURS GIT PATCH FILE EXPECTED RUNS` starts `BIN mcp` in OURS, makes one
untimed call (a warm server), then RUNS times: puts FILE back in both repositories (untimed,
with the blob of the result removed as bench.sh's fresh_object does), times a `git apply
PATCH` process in GIT and an `apply_patch` round trip in OURS (request written to reply
read), and checks both results; then times a `ping` round trip on the same server, the
transport's own share of a call (the pipes, the MCP library, this client). Prints "GIT_MEDIAN
OURS_MEDIAN PING_MEDIAN" in seconds. BENCH_MCP_PING=0 sends no ping (PING_MEDIAN is then 0):
scripts/bench-instructions.sh counts the calls' instructions alone."""
import json, os, statistics, subprocess, sys, time
bin_, ours, git, patch, path, expected, runs = sys.argv[1:8]
want = open(expected, 'rb').read()
text = open(patch).read()
srv = subprocess.Popen([bin_, 'mcp'], cwd=ours, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def call(i, method, params=None):
    msg = {'jsonrpc': '2.0', 'method': method}
    if i is not None:
        msg['id'] = i
    if params is not None:
        msg['params'] = params
    srv.stdin.write((json.dumps(msg) + '\n').encode())
    srv.stdin.flush()
    if i is None:
        return None
    while True:
        reply = json.loads(srv.stdout.readline())
        if reply.get('id') == i:
            return reply
call(0, 'initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                       'clientInfo': {'name': 'bench', 'version': '1'}})
call(None, 'notifications/initialized')
def fresh(repo):
    subprocess.run(['git', '-C', repo, 'checkout', '-q', '--', path], check=True)
    blob = subprocess.run(['git', '-C', repo, 'hash-object', '--', expected], check=True,
                          capture_output=True, text=True).stdout.strip()
    try:
        os.remove(os.path.join(repo, '.git', 'objects', blob[:2], blob[2:]))
    except FileNotFoundError:
        pass
def check(repo, who):
    if open(os.path.join(repo, path), 'rb').read() != want:
        sys.exit(f'mcp: {who}: {path} is not the expected result')
args = {'name': 'apply_patch', 'arguments': {'patch': text}}
g, o, p = [], [], []
for i in range(int(runs) + 1):
    fresh(git)
    null = os.open(os.devnull, os.O_RDWR)
    t = time.perf_counter()
    rc = subprocess.run(['git', 'apply', patch], cwd=git, stdin=null, stdout=null, stderr=null).returncode
    g.append(time.perf_counter() - t)
    os.close(null)
    if rc != 0:
        sys.exit(f'mcp: git apply exit {rc}')
    check(git, 'git')
    fresh(ours)
    t = time.perf_counter()
    reply = call(i + 1, 'tools/call', args)
    o.append(time.perf_counter() - t)
    if 'error' in reply or reply['result'].get('isError'):
        sys.exit(f'mcp: apply_patch failed: {json.dumps(reply)[:2000]}')
    check(ours, 'ours')
    if os.environ.get('BENCH_MCP_PING') == '0':
        p.append(0.0)
        continue
    t = time.perf_counter()
    reply = call(f'ping{i}', 'ping')
    p.append(time.perf_counter() - t)
    if 'error' in reply:
        sys.exit(f'mcp: ping failed: {json.dumps(reply)[:2000]}')
srv.stdin.close()
srv.wait()
# The first call warms the server: not counted.
print(f'{statistics.median(g[1:]):.6f} {statistics.median(o[1:]):.6f} {statistics.median(p[1:]):.6f}')
