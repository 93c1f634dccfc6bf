"""``jiyi proxy``: memory for an agent that already talks to Ollama or an OpenAI-compatible
server, by changing one URL."""

from .app import create_proxy_app
from .upstream import ProxySettings

__all__ = ["ProxySettings", "create_proxy_app"]
