"""What the learning loop needs: the database, the knowledge operations (admission, the Reasoner, the
embedder, decay) and its thresholds."""

from __future__ import annotations

from dataclasses import dataclass, field

from grimoire.graph.db.connection import Database
from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.learning.config import LearningConfig


@dataclass
class Learning:
    knowledge: Knowledge
    config: LearningConfig = field(default_factory=LearningConfig)

    @property
    def db(self) -> Database:
        return self.knowledge.db
