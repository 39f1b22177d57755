"""The protocol's reference Python client (PyPI `mcp`) against `hpacalc mcp`.

Run by tests/integration/mcp.rs: python3 reference_client.py HPACALC ROOT. Initializes, lists the
tools and calls explain_hpa on the README's example files (the default summary, then with detail
"full") and one malformed call; prints one JSON object with what it saw, for the Rust test to
compare with the CLI's answer. The SDK checks each structured answer against the tool's output
schema.
"""

import asyncio
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def field(obj, snake, camel):
    """A field by its name in the SDK's 2.x (snake_case) or 1.x (camelCase) models."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def text_of(result):
    return [c.text for c in result.content if getattr(c, "type", "") == "text"]


async def main(binary: str, root: Path) -> None:
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=str(root))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            arguments = {
                "hpa": (root / "fixtures/hpa/web-cpu.yaml").read_text(),
                "pods": (root / "fixtures/samples/web-cpu.csv").read_text(),
                "now": "2026-11-29T15:00:00Z",
            }
            good = await session.call_tool("explain_hpa", arguments)
            whole = await session.call_tool("explain_hpa", {**arguments, "detail": "full"})
            bad = await session.call_tool("explain_hpa", {"hpa": 5})
            print(
                json.dumps(
                    {
                        "server": field(init, "server_info", "serverInfo").name,
                        "tools": [t.name for t in tools.tools],
                        "isError": [
                            field(r, "is_error", "isError") for r in (good, whole, bad)
                        ],
                        "text": text_of(good),
                        "structured": field(good, "structured_content", "structuredContent"),
                        "fullText": text_of(whole),
                        "full": field(whole, "structured_content", "structuredContent"),
                        "error": text_of(bad),
                    }
                )
            )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
