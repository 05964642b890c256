"""The drawings of nbgym's own environments: one renderer module per environment (see ``KernelEnv.renderer``
for the protocol), named by each environment class's ``renderer`` attribute.

The classic-control modules issue gymnasium 1.4.0's drawing calls, in its order, with its
arithmetic (down to the float32 operations its states imply), so their frames are pixel-identical
to gymnasium's. The toy-text modules draw nbgym's own sprites into frames of gymnasium's sizes.
"""
