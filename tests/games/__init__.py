"""Each game's own tests, one folder per game (tests/games/<key>/): its rules,
data and random-play properties (the engine), its service and its browser tests.
The platform's tests sit in tests/ and run over every game (tests/engines/ holds
the shared engine harness, properties.py and situations.py). These folders are
packages, so files here import the harness as `engines.properties` and the
shared fixtures as before (`conftest`, `phones`, `live`, `browser`, `test_service`...)."""
