"""nbgym's asv benchmark suite: one ``bench_<area>.py`` per area, nbgym beside gymnasium where it is installed."""
