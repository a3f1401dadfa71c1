"""TOML case files: from the file on disk to a checked model ready to solve.

* :mod:`.types` -- the typed schema: one msgspec struct per table, with
  the ranges of :mod:`fecontact.fields` and the cross-field rules; its JSON
  Schema (``fecontact schema``);
* :mod:`.friction` -- the ``friction`` table, derived from the friction-law
  registry (:mod:`fecontact.friction.registry`);
* :mod:`.meshes` -- the mesh tables (a file, or each generator's typed
  parameters) and the size estimate behind the memory limit;
* :mod:`.schema` -- reading a case, ``--set key.path=value`` overrides and
  conversion to the typed schema (:class:`~fecontact.case.schema.CaseError`
  names the file and the dotted key);
* :mod:`.bodies` -- the bodies' tables: meshes (generated or read),
  amplitudes, supports and springs;
* :mod:`.contact` -- the contact tables: slave surfaces, masters (bodies or
  rigid obstacles), formulations and friction laws;
* :mod:`.build` -- the :class:`~fecontact.case.build.CaseModel` of a validated
  case: bodies, bulk system, contact pairs, solver and analysis options;
* :mod:`.checks` -- what only the built model shows: projection, facing
  surfaces, initial penetration, unsupported rigid-body modes, backend.
"""
