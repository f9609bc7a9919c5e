// VirtualTime test helpers live here.
