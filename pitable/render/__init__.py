"""Drawing with Pillow: pure functions from data to images, no I/O."""
