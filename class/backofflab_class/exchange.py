"""nbgrader's exchange, with submissions only their learner and the instructor can open.

nbgrader's own submit leaves a submission folder writable by everyone (0777, "so the instructor
can delete later"), hidden only by its name's timestamp and random part: a learner who learns
that name (the server logs once printed it) can read and replace another learner's submitted
notebooks. This submit makes the folder 2750 instead (its files 0644, nobody else's to change).
The exchange's inbound folder is set-group-id with the instructor's group, so the submission
folder's group is the instructor's: the learner and the instructor can open it, nobody else can
even look inside, and nobody but the learner can write it (collect only reads).

    c.ExchangeFactory.submit = "backofflab_class.exchange.ExchangeSubmit"   (the learners' nbgrader_config.py)
"""

import os

from nbgrader.exchange.default.submit import ExchangeSubmit as _Submit


class ExchangeSubmit(_Submit):
    def copy_files(self):
        super().copy_files()
        dest = os.path.join(self.inbound_path, self.assignment_filename)
        if os.stat(dest).st_gid != os.stat(self.inbound_path).st_gid:
            # (an exchange whose inbound folder does not give its group: the instructor could not
            # read a folder closed to others, so it stays as nbgrader left it)
            self.log.warning("The submission folder's group is not the inbound folder's: left open as nbgrader makes it")
            return
        for root, dirs, files in os.walk(dest):
            for f in files:
                p = os.path.join(root, f)
                if not os.path.islink(p):
                    os.chmod(p, 0o644)
            os.chmod(root, 0o2750)
