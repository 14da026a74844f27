"""Bridges to other game libraries (OpenSpiel), each importing its library only when used."""
