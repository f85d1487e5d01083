"""The edge: what guards the door, before a request or a message reaches a service.

    security.py    tokens, codes and hashing; cleaning names and notes
    names.py       what a student's name may be: no invisible names, look-alikes equal, rude words
                   (rude_words.txt beside it)
    csrf.py        the form token of the facilitator pages
    guard.py       brakes on anonymous clients: wrong codes, new seats per address, tables per class
    limits.py      "at most N per key per window" counts (in memory, or in Redis for many processes)
    netaddr.py     the address phones reach and the client's address
    serving.py     the real server's door: connections per address, slow clients, log lines
    offload.py     password hashing in a real thread, off the event loop
    outage.py      a database or message-queue outage answers `unavailable` / 503, and recovers

It imports nothing of the services or of realtime (tests/test_structure.py checks):
its refusals are `app.errors.ServiceError`.
"""
