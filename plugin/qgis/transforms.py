"""The project's coordinate operation from the pack's CRS, so QGIS does not warn "Cannot use preferred transform"."""

from typing import Any, List, Optional

from qgis.core import QgsCoordinateReferenceSystem, QgsDatumTransform, QgsProject


def settle_transform(project: QgsProject, source: QgsCoordinateReferenceSystem,
                     destination: QgsCoordinateReferenceSystem) -> Optional[str]:
    """Record the best operation this computer can run between two CRSs in the project's transform context.

    QGIS picks the most accurate operation; when that one needs a grid file that is not installed (NAD83 to WGS 84
    through a regional HPGN grid, for the Massachusetts pack), it falls back to the next and says so in a message
    bar on the first drawing, which told a MapAsk user nothing they could act on. Only then is the fallback written
    into the project (Project Properties > Transformations shows it and lets the user choose otherwise); a choice
    already in the project stands. Returns the PROJ string recorded, or None.
    """
    if not (source.isValid() and destination.isValid()) or source == destination:
        return None
    context = project.transformContext()
    if context.hasTransform(source, destination):
        return None
    operations = QgsDatumTransform.operations(source, destination)
    if not operations or operations[0].isAvailable:
        return None
    usable = [op for op in operations if op.isAvailable]
    if not usable:
        return None
    context.addCoordinateOperation(source, destination, usable[0].proj, True)
    project.setTransformContext(context)
    return usable[0].proj


def settle_for_pack(project: QgsProject, srid: int, canvas: Any = None) -> List[str]:
    """The pack's CRS to the project's CRS and to the map canvas's, where they differ."""
    source = QgsCoordinateReferenceSystem(f"EPSG:{srid}")
    targets = [project.crs()]
    if canvas is not None:
        targets.append(canvas.mapSettings().destinationCrs())
    return [p for p in (settle_transform(project, source, t) for t in targets) if p]
