"""People at the table: play against the bots, replay stored deals, ask for advice.

- :mod:`cardlab.play.moves`: typed moves (``5H``, ``7NT``, ``ask P3 QS``) to action ids, and back.
- :mod:`cardlab.play.table`: a state drawn for one seat (rich).
- :mod:`cardlab.play.session`: ``cardlab play``, the terminal game loop (undo, hint, knows).
- :mod:`cardlab.play.record`: played games saved in the results format; deals read back for replay.
- :mod:`cardlab.play.replay`: ``cardlab replay``, a stored deal step by step.
- :mod:`cardlab.play.advise`: ``cardlab advise``, bids by simulation, Literature claims by sampling.
"""
