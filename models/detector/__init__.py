"""The neural ball detector's recipe and weights: labelled rendered scenes, training, export, model card."""
