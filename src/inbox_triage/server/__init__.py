"""The HTTP and WebSocket server (thin: no domain logic here)."""
