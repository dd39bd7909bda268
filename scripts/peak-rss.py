#!/usr/bin/env python3
"""Runs a command and reports the peak resident memory of it and all its descendants together
(the sum of VmRSS over the process tree, sampled every 5 ms), which /usr/bin/time cannot do: its
maximum RSS is one process's. Prints `peak_total_kb max_single_kb` on stderr's last line, keeps the
command's exit status.

    python3 scripts/peak-rss.py imgprep convert -j 4 big/*.heic -o out/
"""
import os, subprocess, sys, time

def tree(root):
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open(f'/proc/{entry}/stat') as f:
                fields = f.read().rsplit(')', 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError):
            pass
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found

def rss_kb(pid):
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

process = subprocess.Popen(sys.argv[1:])
peak_total = peak_single = 0
while process.poll() is None:
    sizes = [rss_kb(pid) for pid in tree(process.pid)]
    peak_total = max(peak_total, sum(sizes))
    peak_single = max([peak_single] + sizes)
    time.sleep(0.005)
print(f'peak-rss: {peak_total} {peak_single}', file=sys.stderr)
sys.exit(process.returncode)
