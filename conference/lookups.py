"""Integer ``__in`` lookups that leave out values no column can hold, as Django's own exact, gt
and lt lookups for integers already do (``django.db.models.lookups.IntegerFieldOverflow``).

Without it a tampered admin form (a many-to-many choice of 99999999999999999999) is a 500 on
SQLite, whose driver raises OverflowError; no row can match such a value anyway.
"""

from django.db.models import IntegerField
from django.db.models.lookups import In


@IntegerField.register_lookup
class IntegerFieldIn(In):
    def process_rhs(self, compiler, connection):
        if self.rhs_is_direct_value():
            low, high = connection.ops.integer_field_range(
                self.lhs.output_field.get_internal_type()
            )
            self.rhs = [
                value
                for value in self.rhs
                if not isinstance(value, int)
                or ((low is None or value >= low) and (high is None or value <= high))
            ]
        return super().process_rhs(compiler, connection)
