"""bm-train --ray on a two-node Ray cluster started on this machine (``ray.cluster_utils.Cluster``, as Ray
tests itself): one rollout actor on each node, each labelling its own games for expert iteration.

Runs only where Ray is installed (``.venv-rllib``, or ``pip install 'black-maria[ray]'``).
"""

from __future__ import annotations

import pytest

try:
    import ray
    from ray.cluster_utils import Cluster
except ImportError:
    pytest.skip("Ray is not installed here; it runs in .venv-rllib (scripts/setup_extra_env.sh rllib rllib) "
                "or after pip install 'black-maria[ray]'", allow_module_level=True)

from bm_env.training.state import list_states, load_state
from bm_env.training.trainer import Trainer

from kit import DECISIONS_PER_UPDATE, tiny_config

pytestmark = pytest.mark.rllib


@pytest.fixture(scope="module")
def two_nodes():
    """A head node and a second node of one CPU each; the test's process is a driver of the cluster."""
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def test_one_actor_on_each_node_labels_its_games_and_the_run_trains(two_nodes, tmp_path):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    config = tiny_config(ray_actors=2, exit_share=0.05, exit_worlds=2, total_decisions=2 * DECISIONS_PER_UPDATE)
    trainer = Trainer(config, str(tmp_path), quiet=True, ray_address=two_nodes.address)
    assert len(set(trainer.ray_rollouts.nodes())) == 2  # SPREAD: the actors sit on different nodes
    labelled = []
    label = trainer.label
    trainer.label = lambda rollout: labelled.append(label(rollout)) or labelled[-1]
    assert trainer.run().stopped == "done"
    assert len(labelled) == 2 and all(len(labels.rows) > 0 for labels in labelled)
    state = load_state(list_states(str(tmp_path))[-1])
    assert len(state["ray_actors"]) == 2 and state["update"] == 2
    assert ray.is_initialized()  # a cluster the run joined is left running for its owner
