"""Bytes an MCP client receives from `hpacalc mcp`: tools/list, and explain_hpa on the README example
(default summary and detail "full"). Usage: python3 benches/mcp_bytes.py path/to/hpacalc REPO_ROOT
(docs/performance.md, "What an answer costs a context window")."""
import json, subprocess, sys
binary, root = sys.argv[1], sys.argv[2]
p = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=root, text=True)
def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
def recv(): return p.stdout.readline()
send({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"m","version":"1"}}}); recv()
send({"jsonrpc":"2.0","method":"notifications/initialized"})
send({"jsonrpc":"2.0","id":2,"method":"tools/list"}); tl = recv()
args = {"hpa": open(root+"/fixtures/hpa/web-cpu.yaml").read(), "pods": open(root+"/fixtures/samples/web-cpu.csv").read(), "now": "2026-11-29T15:00:00Z"}
out = {"tools/list": len(tl.encode())}
for name, a in [("default", args), ("full", {**args, "detail": "full"})]:
    send({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"explain_hpa","arguments":a}})
    r = json.loads(recv())["result"]
    out[name] = {"message": len(json.dumps(r)), "text": sum(len(c["text"].encode()) for c in r["content"]), "structured": len(json.dumps(r.get("structuredContent"), separators=(",",":")).encode()), "isError": r.get("isError")}
print(json.dumps(out))
p.stdin.close(); p.wait()
