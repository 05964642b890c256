"""Experimental module (gymnasium's path): the functional environment API, :mod:`nbgym.experimental.functional`."""
