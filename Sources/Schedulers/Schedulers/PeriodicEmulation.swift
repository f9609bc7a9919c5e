// Fixed-rate emulation of periodic scheduling: see the virtual-time work.
