"""Runs notebooks for notebook.Executor: one Python process for many notebooks, several at once.

Reads one JSON request a line on stdin: {"id": N, "in": PATH, "out": PATH, "timeout": SECONDS,
"kernel": NAME, "run_skipped": BOOL}. Executes the notebook at "in" with nbclient, as `jupyter
nbconvert --execute --allow-errors` does (cells tagged skip-execution are skipped unless
run_skipped, no timing recorded, the kernel's working directory is the notebook's folder),
writes it to "out", and prints one JSON line:
{"id": N, "error": null} or {"id": N, "error": "what went wrong"}. Ends when stdin closes and
every notebook it started has ended.
"""

import asyncio
import json
import os
import sys
import traceback

import nbformat
from nbclient import NotebookClient


async def run(req):
    nb = nbformat.read(req["in"], as_version=4)
    client = NotebookClient(
        nb,
        timeout=req["timeout"],
        kernel_name=req["kernel"],
        allow_errors=True,
        record_timing=False,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(req["in"]))}},
    )
    if req.get("run_skipped"):
        client.skip_cells_with_tag = "backofflab-run-every-cell"  # a tag no cell carries
    await client.async_execute()
    nbformat.write(nb, req["out"])


async def one(req, out_lock):
    error = None
    try:
        await run(req)
    except Exception:  # reported to the Go side, which fails that notebook's test
        error = traceback.format_exc(limit=8)
    async with out_lock:
        sys.stdout.write(json.dumps({"id": req["id"], "error": error}) + "\n")
        sys.stdout.flush()


async def main():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out_lock = asyncio.Lock()
    tasks = set()
    while line := await reader.readline():
        if line.strip():
            task = asyncio.create_task(one(json.loads(line), out_lock))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.wait(tasks)


if __name__ == "__main__":
    asyncio.run(main())
