"""The box: the controller's event loop, the game session and its persistence."""
