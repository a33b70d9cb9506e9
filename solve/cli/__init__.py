"""The solve stage's commands: ``solve`` and ``evaluate`` (:mod:`.commands`, registered by
``cli.py``), with the classic games' options (:mod:`.classic`) and Texas Hold'em's
(:mod:`.holdem`). Library code never imports this package."""
