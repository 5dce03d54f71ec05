"""Writes N shard JSON reports of M specs each, shaped as ralph-ci writes
them (version 1, three rotations per spec), for bench/scale.sh.

Usage: python3 bench/shards.py DIR N M
"""
import json
import sys

out, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def rotation(i, spec):
    return {
        "iteration": i, "stage": "coder", "agent": "coder",
        "agent_status": "DONE", "status": "DONE", "claimed": True, "accepted": True,
        "counter": i, "changed_files": ["src/%s/main.go" % spec, "src/%s/main_test.go" % spec],
        "duration_seconds": 12.5 + i, "cost_usd": 0.0125, "cost_known": True,
        "exit_code": 0, "timed_out": False,
        "log": ".ralph/history/%s-abcdef/%03d.log" % (spec, i),
        "layers": [{"name": "contradiction", "passed": True}, {"name": "signal", "passed": True},
                   {"name": "string_match", "passed": True, "detail": "promise found"}],
    }


for shard in range(n):
    specs = []
    for j in range(m):
        name = "s%03d-%04d" % (shard, j)
        specs.append({
            "path": "specs/%s.spec.md" % name, "key": name + "-abcdef", "title": "Spec " + name,
            "tier": "auto", "outcome": "verified", "counter": 3, "stage": "coder",
            "rotations": [rotation(i, name) for i in (1, 2, 3)],
            "total_rotations": 3, "cost_usd": 0.0375, "duration_seconds": 43.5,
        })
    report = {
        "version": 1, "tool": {"name": "ralph-ci", "version": "v0.0.1"}, "command": "run",
        "started_at": "2026-11-22T10:00:00Z", "finished_at": "2026-11-22T10:%02d:00Z" % (shard % 60),
        "exit": {"code": 0, "class": "done", "message": "all specs verified 3/3"},
        "totals": {"specs": m, "verified": m, "pending": 0, "failed": 0, "stuck": 0,
                   "awaiting": 0, "rotations": 3 * m, "cost_usd": 0.0375 * m},
        "specs": specs,
    }
    with open("%s/shard-%02d.json" % (out, shard), "w") as f:
        json.dump(report, f, indent=2)
